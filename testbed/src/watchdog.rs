//! The stall watchdog: a run that records nothing for a while says so.
//!
//! A server that never answers (a `hang`, a `blackhole`, a process stopped
//! in a debugger) holds a request forever unless the stage times it out,
//! and a run waiting on it printed nothing at all: no progress, no error,
//! no end. The watchdog notices that no outcome has been recorded for
//! [`Scenario::stall_after`] ([`STALL`] unless a test shortens it), and
//! prints on stderr what the run is waiting on and how to bound it
//! ([`Stall`]); again after twice as long, and so on, so a run stuck for an
//! hour says so a dozen times, not three hundred.
//!
//! [`Scenario::stall_after`]: crate::stage::Scenario::stall_after
//! [`STALL`]: crate::stage::STALL
//!
//! It runs on a thread of its own ([`Monitor`]), which also collects SIGINT
//! and SIGTERM for the harness when the binary asked for them
//! ([`crate::interrupt`]). A stage that forks cannot have that thread (a
//! forking process stays single-threaded): 02-fork's parent watches its
//! workers itself, with the same [`Stall`] message.
//!
//! `watchdog/sockets.rs` is how the watchdog sees the connections of a
//! stage that does not describe them; `watchdog/lock.rs`, how it sees that
//! the stage's thread is blocked on a lock rather than waiting on the
//! server.
//!
//! A run that asks for it ([`Watch::end_on_stall`], `--stall-ends`) ends
//! at its first stall, with exit status 1, once the stall is printed: a
//! stage blocked on a lock never gets to end on its own, and a script or a
//! test would otherwise wait forever.

pub mod lock;
mod sockets;

use std::fmt;
use std::io::{self, PipeReader, PipeWriter};
use std::net::SocketAddr;
use std::os::fd::AsFd;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

pub use sockets::{Connections, connections_to};

use crate::duration::format_duration;
use crate::interrupt::{RunRecord, Signals};
use crate::progress::Progress;
use crate::stage::ReadTimeoutSupport;

/// How often the watchdog looks: often enough to speak within a second of
/// [`STALL`](crate::stage::STALL), rarely enough to cost nothing. Never
/// more rarely than a tenth of the stall, for the tests' short ones.
const TICK: Duration = Duration::from_secs(1);

/// What a stalled run is waiting on, in words for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stall {
    /// The stage's name.
    pub stage: &'static str,
    /// How long nothing has been recorded.
    pub quiet: Duration,
    /// Items recorded so far.
    pub recorded: u64,
    /// Items in the run.
    pub items: u64,
    /// Where the requests went.
    pub server: SocketAddr,
    /// What the connections to it are doing, when that can be seen.
    pub connections: Option<Connections>,
    /// The read timeout the stage runs with.
    pub read_timeout: Option<Duration>,
    /// Whether the stage has a read timeout at all, in its own words.
    pub read_timeout_support: ReadTimeoutSupport,
}

impl fmt::Display for Stall {
    /// One line: what, where, how to bound it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: nothing recorded for {} ({} of {} items so far); ",
            self.stage,
            format_duration(self.quiet),
            self.recorded,
            self.items
        )?;
        let server = self.server;
        match self.connections {
            None => write!(f, "waiting on {server}")?,
            Some(c) if c.open == 0 && c.connecting == 0 => {
                write!(f, "no connection to {server} is open")?
            }
            Some(c) => {
                match c.oldest {
                    Some(oldest) if c.waiting > 0 => write!(
                        f,
                        "{} of {} connections to {server} wait for a reply, the oldest for {}",
                        c.waiting,
                        c.open,
                        format_duration(oldest)
                    )?,
                    _ => write!(
                        f,
                        "{} connections to {server} open, none waiting for a reply",
                        c.open
                    )?,
                }
                if c.connecting > 0 {
                    write!(
                        f,
                        ", {} still connecting (--connect-timeout bounds them)",
                        c.connecting
                    )?;
                }
            }
        }
        match (self.read_timeout, self.read_timeout_support) {
            (Some(timeout), _) => write!(
                f,
                "; a request the server never answers fails as `timeout` after {} \
                 (--read-timeout)",
                format_duration(timeout)
            ),
            (None, ReadTimeoutSupport::Enforced) => write!(
                f,
                "; nothing bounds the wait: --read-timeout (e.g. 1s) fails a request the \
                 server never answers"
            ),
            (None, ReadTimeoutSupport::Missing(why)) => write!(
                f,
                "; {} has no read timeout ({why}), so a request the server never answers \
                 waits forever: stop the run (Ctrl-C)",
                self.stage
            ),
        }
    }
}

/// When to speak: after the stall's length of silence, then after twice as
/// long.
#[derive(Debug)]
pub struct Silence {
    recorded: u64,
    since: Instant,
    next: Duration,
    stall: Duration,
}

impl Silence {
    /// Nothing recorded yet, from now; the first word after `stall`
    /// ([`crate::stage::STALL`] unless a test cannot wait that long).
    pub fn new(stall: Duration) -> Silence {
        Silence {
            recorded: 0,
            since: Instant::now(),
            next: stall,
            stall,
        }
    }

    /// Takes the count of recorded items; returns how long nothing has
    /// been recorded when it is time to say so.
    pub fn observe(&mut self, recorded: u64) -> Option<Duration> {
        if recorded != self.recorded {
            *self = Silence {
                recorded,
                ..Silence::new(self.stall)
            };
            return None;
        }
        let quiet = self.since.elapsed();
        (quiet >= self.next).then(|| {
            self.next *= 2;
            quiet
        })
    }
}

/// What the watchdog watches: a run that records through `progress`.
#[derive(Debug, Clone)]
pub struct Watch {
    /// The stage's name.
    pub stage: &'static str,
    /// Items in the run.
    pub items: u64,
    /// Where the requests go.
    pub server: SocketAddr,
    /// The read timeout the stage runs with.
    pub read_timeout: Option<Duration>,
    /// Whether the stage has a read timeout at all, in its own words.
    pub read_timeout_support: ReadTimeoutSupport,
    /// The count the stage's stores tick.
    pub progress: Progress,
    /// How long the run may record nothing before the watchdog speaks.
    pub stall_after: Duration,
    /// End the process (status 1) at the first stall, once it is printed.
    pub end_on_stall: bool,
}

/// The watchdog's thread, and the interrupt's: stopped (and joined) by
/// [`Monitor::stop`] or by dropping it.
#[derive(Debug)]
pub struct Monitor {
    /// Dropping it wakes the thread to end.
    stop: Option<PipeWriter>,
    thread: Option<JoinHandle<()>>,
}

impl Monitor {
    /// Starts watching; call it on the thread that will run the stage,
    /// whose system call a stall looks at (`watchdog/lock.rs`). With
    /// `interrupt`, a SIGINT or SIGTERM that arrives
    /// while the monitor runs ends the process, after the account of what
    /// the run recorded ([`RunRecord::interrupted`]): the stage cannot be
    /// stopped from outside, but its outcomes are all in the database.
    pub fn start(
        watch: Watch,
        interrupt: Option<(Arc<Signals>, RunRecord)>,
    ) -> io::Result<Monitor> {
        let (stop_rx, stop) = io::pipe()?;
        let stage_thread = lock::this_thread();
        let thread = thread::Builder::new()
            .name("watchdog".into())
            .spawn(move || watch_loop(&watch, stage_thread, &stop_rx, interrupt.as_ref()))?;
        Ok(Monitor {
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Stops the thread and waits for it. Idempotent.
    pub fn stop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            // The loop does not panic; if it did, its message is on stderr.
            let _ = thread.join();
        }
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.stop();
    }
}

fn watch_loop(
    watch: &Watch,
    stage_thread: nix::unistd::Pid,
    stop: &PipeReader,
    interrupt: Option<&(Arc<Signals>, RunRecord)>,
) {
    let mut silence = Silence::new(watch.stall_after);
    loop {
        let mut fds = vec![PollFd::new(stop.as_fd(), PollFlags::POLLIN)];
        if let Some((signals, _)) = interrupt {
            fds.push(PollFd::new(signals.as_fd(), PollFlags::POLLIN));
        }
        let tick = TICK.min(watch.stall_after / 10);
        let timeout = PollTimeout::try_from(tick).unwrap_or(PollTimeout::MAX);
        match poll(&mut fds, timeout) {
            Ok(_) | Err(Errno::EINTR) => {}
            // Nothing to watch with: the run goes on unwatched.
            Err(_) => return,
        }
        // The run ended first: a signal that comes now is the run's end
        // anyway, and the full report is on its way.
        if fds[0].any() != Some(false) {
            return;
        }
        if let Some((signals, record)) = interrupt
            && let Some(signal) = signals.take()
        {
            watch.progress.finish();
            eprint!("{}", record.interrupted(signal));
            std::process::exit(crate::interrupt::exit_status(signal).into());
        }
        let recorded = watch.progress.recorded();
        if recorded >= watch.items {
            continue;
        }
        if let Some(quiet) = silence.observe(recorded) {
            let stall = Stall {
                stage: watch.stage,
                quiet,
                recorded,
                items: watch.items,
                server: watch.server,
                connections: connections_to(watch.server),
                read_timeout: watch.read_timeout,
                read_timeout_support: watch.read_timeout_support,
            };
            let mut line = stall.to_string();
            if lock::blocked_on_lock(stage_thread) {
                // The thread cannot run at all: its connections and their
                // timeouts are beside the point, so the lock replaces them.
                let head = line
                    .split_once("; ")
                    .map_or(line.as_str(), |(head, _)| head);
                line = format!("{head}; {}", lock::LOCKED);
            }
            watch.progress.say(&line);
            if watch.end_on_stall {
                watch.progress.finish();
                eprintln!("{}: the run ends at its stall (--stall-ends)", watch.stage);
                std::process::exit(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stage::STALL;

    fn stall() -> Stall {
        Stall {
            stage: "select",
            quiet: Duration::from_secs(10),
            recorded: 480,
            items: 500,
            server: ([127, 0, 0, 1], 17074).into(),
            connections: Some(Connections {
                open: 50,
                connecting: 0,
                waiting: 20,
                oldest: Some(Duration::from_millis(12_300)),
            }),
            read_timeout: None,
            read_timeout_support: ReadTimeoutSupport::Missing(
                "timeouts are stage 5's lesson: try 05-pool",
            ),
        }
    }

    #[test]
    fn a_stall_says_what_is_waited_on_and_how_to_bound_it() {
        let line = stall().to_string();
        for words in [
            "select: nothing recorded for 10.00s (480 of 500 items so far)",
            "20 of 50 connections to 127.0.0.1:17074 wait for a reply, the oldest for 12.30s",
            "select has no read timeout",
            "05-pool",
        ] {
            assert!(line.contains(words), "{words:?} in {line}");
        }
        let bounded = Stall {
            read_timeout: Some(Duration::from_secs(30)),
            read_timeout_support: ReadTimeoutSupport::Enforced,
            ..stall()
        };
        assert!(
            bounded
                .to_string()
                .contains("after 30.00s (--read-timeout)")
        );
        let unbounded = Stall {
            read_timeout_support: ReadTimeoutSupport::Enforced,
            ..stall()
        };
        assert!(unbounded.to_string().contains("--read-timeout (e.g. 1s)"));
    }

    #[test]
    fn silence_speaks_after_the_stall_then_twice_as_late() {
        let mut silence = Silence::new(STALL);
        assert_eq!(silence.observe(0), None);
        // Ten seconds later, as far as the watchdog can tell.
        silence.since -= STALL;
        assert!(silence.observe(0).is_some());
        assert_eq!(silence.observe(0), None, "not again at once");
        silence.since -= STALL;
        assert!(silence.observe(0).is_some(), "again at twice the stall");
        // Progress resets it.
        assert_eq!(silence.observe(1), None);
        assert_eq!(silence.observe(1), None);
    }
}
