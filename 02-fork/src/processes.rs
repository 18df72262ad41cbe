//! Worker processes: `fork()` one child per partition, `waitpid()` for
//! every one of them, and report the ones that did not finish.
//!
//! This is the source article's "più task" program, with its three system
//! calls: `fork` makes a copy of this process that starts life returning
//! from the same call (0 in the child, the child's pid in the parent);
//! `_exit` ends a child without running any of the parent's clean-up; and
//! `waitpid` lets the parent sleep until a given child has ended, and tells
//! it *how* it ended: its exit code, or the signal that killed it.
//!
//! # Fork safety
//!
//! `fork` copies the whole memory of the process but only the thread that
//! called it. Any lock another thread held at that instant (stdout's, the
//! allocator's, a thread pool's queue, SQLite's) is copied *locked*, with
//! no thread left to unlock it, and the child hangs the first time it needs
//! it. So this module keeps to a few rules:
//!
//! 1. **Fork only a single-threaded process.** [`spawn_worker`] counts the
//!    process's threads first and refuses to fork if there is more than
//!    one. The harness helps: for a stage that forks, the embedded slow
//!    server runs in a process of its own (`testbed::forked`), and no
//!    progress bar is drawn.
//! 2. **Nothing stateful crosses the fork.** No SQLite connection and no
//!    TCP connection is open in the parent when it forks; each child opens
//!    its own, after the fork ([`crate::worker::work`]), and closes every
//!    descriptor it inherited (the forked server's keep-alive pipe among
//!    them, which would otherwise keep that server alive until the last
//!    worker ends).
//! 3. **Children never print and never return.** A child's stdout is the
//!    parent's; it reports only through its exit status, and ends with
//!    `_exit`, never by returning into the parent's code (which would run
//!    the rest of the parent's program, and its destructors, twice) or by
//!    `exit` (which would flush stdio buffers copied from the parent).
//! 4. **Every child is waited for**, by pid, so none is left a zombie and
//!    none of them can be confused with the forked server, which is a child
//!    of this process too.
//! 5. **No child outlives the parent.** Each asks the kernel to send it
//!    SIGKILL when its parent dies (`PR_SET_PDEATHSIG`), however the
//!    parent dies, then checks that the parent has not died already,
//!    before the request: a child whose parent is gone has been adopted by
//!    another process, and `getppid` says so. A parent told to stop
//!    (SIGINT, SIGTERM) stops its workers itself ([`crate::supervise`]).
//!
//! Not here: what a child does ([`crate::worker`]); waiting for the
//! children, and stopping them ([`crate::supervise`]); the items a dead
//! child left behind ([`crate::unfinished`]).

use std::io;
use std::panic::{self, AssertUnwindSafe};

use nix::sys::prctl::set_pdeathsig;
use nix::sys::signal::{Signal, raise};
use nix::sys::wait::WaitStatus;
use nix::unistd::{ForkResult, Pid, fork, getpid, getppid};
use testbed::forked::{close_inherited, thread_count};
use testbed::stage::{RunStats, Scenario, StageError};
use testbed::workload::Item;

use crate::crash::CrashPlan;
use crate::partition::partition;
pub use crate::supervise::{Child, wait_for};
use crate::supervise::{Watched, supervise, unblock_in_child};
use crate::unfinished::{Unfinished, notes};
use crate::worker::{WorkerId, work};

/// Exit code of a child that recorded its whole partition.
pub const EXIT_DONE: i32 = 0;

/// Exit code of a child whose results database failed: it stopped at the
/// failing item, and the rest of its partition has no row.
pub const EXIT_STORE_FAILED: i32 = 1;

/// Exit code of a child that panicked (a bug: it never should).
pub const EXIT_PANICKED: i32 = 2;

/// Exit code of a child whose parent died before the child could ask to
/// die with it: it does nothing, and records nothing.
pub const EXIT_ORPHANED: i32 = 3;

/// Runs the scenario in `workers` child processes and waits for all of
/// them. `crash` makes one of them die on purpose (see [`CrashPlan`]).
///
/// A SIGINT or SIGTERM while they run stops them all; the signal is then
/// raised again, for whoever runs this stage to act on (the harness
/// reports what was recorded), once this function has restored the
/// signal mask it found.
pub fn run(
    scenario: &Scenario,
    workers: usize,
    crash: Option<CrashPlan>,
) -> Result<RunStats, StageError> {
    // Before the first fork: a signal that came between two forks would
    // otherwise kill this process with the children running.
    let watched = Watched::block()?;
    // ANCHOR: run
    let partitions = partition(scenario.items.iter(), workers);
    let mut children = Vec::with_capacity(workers);
    for (k, items) in partitions.iter().enumerate() {
        let worker = WorkerId::new(k);
        let crash_after = CrashPlan::for_worker(crash, worker);
        match spawn_worker(scenario, worker, items, crash_after) {
            Ok(pid) => children.push(Child { worker, pid }),
            Err(error) => {
                // Never leave a child behind: wait for the ones already
                // running (they finish their partitions), then give up.
                for child in &children {
                    let _ = wait_for(child.pid);
                }
                return Err(io::Error::new(
                    error.kind(),
                    format!("could not fork {worker} of {workers}: {error}"),
                )
                .into());
            }
        }
    }
    let ended = supervise(scenario, &children, &watched)?;
    let mut exits = Vec::with_capacity(workers);
    let mut unfinished = Vec::new();
    for (child, &status) in children.iter().zip(&ended.statuses) {
        if status != WaitStatus::Exited(child.pid, EXIT_DONE) {
            unfinished.push(Unfinished {
                worker: child.worker,
                why: format!("(pid {}) {}", child.pid, describe(status)),
            });
        }
        exits.push(describe(status));
    }
    // ANCHOR_END: run
    let mut stats = RunStats::new(workers);
    for note in notes(scenario, &partitions, &unfinished)? {
        stats.note(note);
    }
    stats.figure("workers", "processes");
    stats.figure("exit_status", exits);
    if let Some(signal) = ended.interrupted {
        // Blocked, so it only becomes pending: for the harness to find, or
        // delivered when `watched` restores a mask that did not block it.
        let _ = raise(signal);
    }
    drop(watched);
    Ok(stats)
}

// ANCHOR: spawn
/// Forks a child that runs [`work`] over `items` as `worker`, then exits
/// (see the module docs for its exit codes); returns the child's pid.
///
/// `crash_after`: the child kills itself with `SIGKILL` after recording
/// that many outcomes (`--crash-worker`).
///
/// Refuses to fork, with an error, if this process has more than one
/// thread (fork safety rule 1).
pub fn spawn_worker(
    scenario: &Scenario,
    worker: WorkerId,
    items: &[&Item],
    crash_after: Option<usize>,
) -> io::Result<Pid> {
    let threads = thread_count()?;
    if threads != 1 {
        return Err(io::Error::other(format!(
            "refusing to fork a process with {threads} threads: a lock another thread \
             holds at fork time stays locked forever in the child"
        )));
    }
    // Taken before the fork: in the child, `getppid` is compared with it.
    let parent = getpid();
    // SAFETY: in a multi-threaded process the child of `fork` may only call
    // async-signal-safe functions until it execs, because locks held by the
    // threads that were not copied stay held. We checked just above that
    // this process has one thread, and nothing between the check and this
    // call starts one, so the child owns every lock there is and may
    // allocate, open sockets and SQLite connections. It never returns from
    // this function (`child_main` ends in `_exit`), so it never runs the
    // parent's code or destructors.
    match unsafe { fork() }? {
        ForkResult::Child => child_main(scenario, worker, items, crash_after, parent),
        ForkResult::Parent { child } => Ok(child),
    }
}
// ANCHOR_END: spawn

/// The child's whole life: work, then `_exit` with a code that says how it
/// went. Never returns, never prints.
fn child_main(
    scenario: &Scenario,
    worker: WorkerId,
    items: &[&Item],
    crash_after: Option<usize>,
    parent: Pid,
) -> ! {
    // Die with the parent, whatever kills it. The request only covers a
    // death after it; a parent that died in between has already left this
    // child to another process, which `getppid` shows.
    if set_pdeathsig(Signal::SIGKILL).is_err() || getppid() != parent {
        exit(EXIT_ORPHANED)
    }
    // The parent blocked these to handle them itself; here they must end
    // the process, from a Ctrl-C to the group or the parent's SIGTERM.
    unblock_in_child();
    // A panic message would go to the parent's stderr; the exit code says
    // it instead.
    panic::set_hook(Box::new(|_| {}));
    // Everything this child needs it opens itself, after the fork. What it
    // inherited would only keep things alive that should not be: the forked
    // server's keep-alive pipe above all, whose end of file stops that
    // server, and which must not wait for this child's end too.
    close_inherited(&[]);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        work(scenario, worker, items, |recorded| {
            if Some(recorded) == crash_after {
                // Like `kill -9` from outside: no unwinding, no clean-up,
                // the connections closed by the kernel. If raising fails
                // the child just goes on, and the test that expects a death
                // will say so.
                let _ = raise(Signal::SIGKILL);
            }
        })
    }));
    exit(match outcome {
        Ok(Ok(())) => EXIT_DONE,
        Ok(Err(_)) => EXIT_STORE_FAILED,
        Err(_) => EXIT_PANICKED,
    })
}

/// Ends a child at once with `code`.
fn exit(code: i32) -> ! {
    // SAFETY: `_exit` has no preconditions; it is `unsafe` only because
    // every foreign function is. It is `_exit`, not `exit` or a return from
    // `main`, on purpose: no `atexit` handlers, no destructors of the
    // parent's objects (the temporary database directory, the forked
    // server's handle), no flushing of stdio buffers copied from the parent.
    unsafe { libc::_exit(code) }
}

/// A child's end in words: `exited 0`, `exited 1 (its results database
/// failed)`, `killed by SIGKILL`.
pub fn describe(status: WaitStatus) -> String {
    match status {
        WaitStatus::Exited(_, code) => {
            let meaning = match code {
                EXIT_DONE => "",
                EXIT_STORE_FAILED => " (its results database failed)",
                EXIT_PANICKED => " (it panicked)",
                EXIT_ORPHANED => " (its parent died before it started)",
                _ => " (an exit code this stage never uses)",
            };
            format!("exited {code}{meaning}")
        }
        WaitStatus::Signaled(_, signal, _) => format!("killed by {signal}"),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_exits_and_signals() {
        let pid = Pid::from_raw(42);
        assert_eq!(describe(WaitStatus::Exited(pid, 0)), "exited 0");
        assert!(describe(WaitStatus::Exited(pid, 1)).contains("database"));
        assert_eq!(
            describe(WaitStatus::Signaled(pid, Signal::SIGKILL, false)),
            "killed by SIGKILL"
        );
    }

    #[test]
    fn refuses_to_fork_a_threaded_process() {
        use std::sync::mpsc;
        use testbed::store::DbTarget;

        // A second thread, alive during the call, whatever thread libtest
        // runs this test on: exactly the case that must not fork.
        let (release, parked) = mpsc::channel::<()>();
        let other = std::thread::spawn(move || parked.recv());
        let scenario = Scenario::new(Vec::new(), ([127, 0, 0, 1], 1).into(), DbTarget::memory());
        let refused = spawn_worker(&scenario, WorkerId::new(0), &[], None);
        drop(release);
        let _ = other.join();
        let error = refused.expect_err("a process with two threads must not fork");
        assert!(error.to_string().contains("threads"), "{error}");
    }
}
