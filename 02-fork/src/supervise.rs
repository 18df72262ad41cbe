//! The parent while its workers run: it waits for them, stops them when it
//! is told to stop, and says so when they all go quiet.
//!
//! A parent that only calls `waitpid` on each child in turn can do nothing
//! else: a SIGINT or SIGTERM sent to it alone (by `kill`, by a supervisor)
//! kills it and leaves its workers running without it, and a worker stuck
//! on a server that never answers keeps it waiting in silence. So the
//! parent blocks SIGINT, SIGTERM and SIGCHLD before it forks
//! ([`Watched::block`]) and reads them from a `signalfd` instead, with a
//! timeout, in one loop ([`supervise`]):
//!
//! - SIGCHLD: a child ended; reap every child that has (`WNOHANG`);
//! - SIGINT or SIGTERM: send every worker still alive SIGTERM, reap them
//!   all, and hand the signal back to whoever runs this stage (it raises it
//!   again once the workers are gone);
//! - nothing for a while: count the rows in the database; if none came
//!   for the stall time, print what the run waits on
//!   ([`testbed::watchdog::Stall`]), the same words a stage in one process
//!   gets from the harness's watchdog thread, which a forking process
//!   cannot have.
//!
//! A parent that dies without running any of this (SIGKILL) is covered by
//! its children: each asks the kernel for SIGKILL when its parent dies
//! (`PR_SET_PDEATHSIG`, see [`crate::processes`]).
//!
//! The [`Child`] handle and [`wait_for`] live here too, the waiting half of
//! a child's life: `processes.rs` forks the workers and hands them over.
//!
//! Not here: forking the workers (`processes.rs`).

use std::collections::HashMap;
use std::io;
use std::os::fd::AsFd;
use std::time::Duration;

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{SigSet, SigmaskHow, Signal, kill};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use testbed::stage::Scenario;
use testbed::store::Store;
use testbed::watchdog::{Connections, Silence, Stall};

use crate::worker::WorkerId;

/// How often the parent looks at the database when nothing else wakes it.
const TICK: Duration = Duration::from_secs(1);

/// The signals the parent handles as data while its workers run.
const WATCHED: [Signal; 3] = [Signal::SIGINT, Signal::SIGTERM, Signal::SIGCHLD];

/// The watched signals, blocked, and readable; dropping it restores the
/// signal mask the process had before.
#[derive(Debug)]
pub struct Watched {
    fd: SignalFd,
    previous: SigSet,
}

impl Watched {
    /// Blocks SIGINT, SIGTERM and SIGCHLD for this (single) thread. Call it
    /// before forking, so that no signal is lost between a fork and the
    /// wait; the children unblock them again ([`unblock_in_child`]).
    pub fn block() -> io::Result<Watched> {
        let mask = watched_set();
        let previous = mask.thread_swap_mask(SigmaskHow::SIG_BLOCK)?;
        let flags = SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC;
        Ok(Watched {
            fd: SignalFd::with_flags(&mask, flags)?,
            previous,
        })
    }

    /// Every watched signal that arrived since the last call.
    fn drain(&self) -> Vec<Signal> {
        let mut signals = Vec::new();
        while let Ok(Some(info)) = self.fd.read_signal() {
            if let Some(signal) = i32::try_from(info.ssi_signo)
                .ok()
                .and_then(|n| Signal::try_from(n).ok())
            {
                signals.push(signal);
            }
        }
        signals
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // A signal raised again while blocked is delivered now if the
        // process did not block it before: the default action, as if this
        // stage had never looked.
        let _ = self.previous.thread_set_mask();
    }
}

fn watched_set() -> SigSet {
    let mut set = SigSet::empty();
    for signal in WATCHED {
        set.add(signal);
    }
    set
}

/// In a new child: give the watched signals their default behaviour back,
/// so that a Ctrl-C to the process group, or a SIGTERM from the parent,
/// ends it.
pub fn unblock_in_child() {
    // A failure leaves them blocked: the parent's SIGKILL on its death
    // still ends the child.
    let _ = watched_set().thread_unblock();
}

/// A forked worker that has not been waited for yet.
#[derive(Debug, Clone, Copy)]
pub struct Child {
    /// Which partition it works on.
    pub worker: WorkerId,
    /// Its process id.
    pub pid: Pid,
}

/// Waits until the child `pid` has ended, and says how.
pub fn wait_for(pid: Pid) -> io::Result<WaitStatus> {
    loop {
        match waitpid(pid, None) {
            Ok(status @ (WaitStatus::Exited(..) | WaitStatus::Signaled(..))) => return Ok(status),
            // Stopped or continued by job control, or a signal handler ran:
            // the child is still alive, keep waiting.
            Ok(_) | Err(Errno::EINTR) => {}
            Err(error) => return Err(error.into()),
        }
    }
}

/// How the workers ended.
#[derive(Debug)]
pub struct Ended {
    /// Each child's end, in the order of `children`.
    pub statuses: Vec<WaitStatus>,
    /// The SIGINT or SIGTERM that stopped them, if one did.
    pub interrupted: Option<Signal>,
}

/// Waits until every child has ended, stopping them all on SIGINT or
/// SIGTERM, and saying so when the run records nothing for the scenario's
/// stall time.
pub fn supervise(scenario: &Scenario, children: &[Child], watched: &Watched) -> io::Result<Ended> {
    let mut statuses: HashMap<Pid, WaitStatus> = HashMap::new();
    let mut interrupted = None;
    let mut silence = Silence::new(scenario.stall_after);
    let tick = TICK.min(scenario.stall_after / 10);
    loop {
        reap_ended(children, &mut statuses)?;
        if statuses.len() == children.len() {
            break;
        }
        if interrupted.is_some() {
            // Stopped: nothing left to do but wait for each.
            for child in children {
                if let std::collections::hash_map::Entry::Vacant(slot) = statuses.entry(child.pid) {
                    slot.insert(wait_for(child.pid)?);
                }
            }
            break;
        }
        let mut fds = [PollFd::new(watched.fd.as_fd(), PollFlags::POLLIN)];
        match poll(
            &mut fds,
            PollTimeout::try_from(tick).unwrap_or(PollTimeout::MAX),
        ) {
            Ok(_) | Err(Errno::EINTR) => {}
            Err(e) => return Err(e.into()),
        }
        for signal in watched.drain() {
            if signal != Signal::SIGCHLD {
                interrupted = Some(signal);
                for child in children.iter().filter(|c| !statuses.contains_key(&c.pid)) {
                    // Already gone is fine: it is reaped next.
                    let _ = kill(child.pid, Signal::SIGTERM);
                }
            }
        }
        if interrupted.is_none() {
            speak_if_stalled(scenario, children, &statuses, &mut silence);
        }
    }
    Ok(Ended {
        statuses: children.iter().map(|c| statuses[&c.pid]).collect(),
        interrupted,
    })
}

/// Reaps, without waiting, every child that has ended.
fn reap_ended(children: &[Child], statuses: &mut HashMap<Pid, WaitStatus>) -> io::Result<()> {
    for child in children {
        if statuses.contains_key(&child.pid) {
            continue;
        }
        match waitpid(child.pid, Some(WaitPidFlag::WNOHANG)) {
            Ok(status @ (WaitStatus::Exited(..) | WaitStatus::Signaled(..))) => {
                statuses.insert(child.pid, status);
            }
            // Still running, or stopped by job control: still alive.
            Ok(_) | Err(Errno::EINTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Counts the rows the workers recorded; if none came for the stall time,
/// prints what the run waits on: one request per live worker, each on its
/// own connection, the oldest since that worker's last outcome.
fn speak_if_stalled(
    scenario: &Scenario,
    children: &[Child],
    statuses: &HashMap<Pid, WaitStatus>,
    silence: &mut Silence,
) {
    // Safe to open here: every fork of the run is done, and it is closed
    // again before this returns.
    let Ok(lanes) = Store::open(&scenario.db, scenario.epoch).and_then(|s| s.lane_activity())
    else {
        return;
    };
    let recorded: u64 = lanes.iter().map(|&(_, count, _)| count).sum();
    let Some(quiet) = silence.observe(recorded) else {
        return;
    };
    let now_us = u64::try_from(scenario.epoch.elapsed().as_micros()).unwrap_or(u64::MAX);
    let last: HashMap<_, _> = lanes.iter().map(|&(lane, _, last)| (lane, last)).collect();
    let live: Vec<&Child> = children
        .iter()
        .filter(|c| !statuses.contains_key(&c.pid))
        .collect();
    let oldest = live
        .iter()
        .map(|c| now_us.saturating_sub(last.get(&c.worker.lane()).copied().unwrap_or(0)))
        .max()
        .map(Duration::from_micros);
    let stall = Stall {
        stage: "fork",
        quiet,
        recorded,
        items: scenario.items.len() as u64,
        server: scenario.server,
        connections: Some(Connections {
            open: live.len(),
            connecting: 0,
            waiting: live.len(),
            oldest,
        }),
        read_timeout: scenario.read_timeout,
        read_timeout_support: testbed::stage::ReadTimeoutSupport::Enforced,
    };
    eprintln!("{stall}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watched_set_is_the_three_signals() {
        let set = watched_set();
        for signal in WATCHED {
            assert!(set.contains(signal));
        }
        assert!(!set.contains(Signal::SIGKILL));
    }
}
