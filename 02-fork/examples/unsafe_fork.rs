//! What fork-safety rule 1 prevents, for real: forking while another thread
//! holds a lock.
//!
//! A second thread plays a progress bar: again and again it takes stdout's
//! lock and keeps it while it "draws" for a few milliseconds. The main
//! thread forks children that print one line each. `fork` copies the lock
//! *as it is*, but not the thread that holds it; in a child forked while
//! the lock was held, nobody will ever release it, and the child's
//! `println!` waits forever. The parent gives each child a generous
//! deadline, then kills it and counts it as hung.
//!
//! This is a demonstration of a bug, not a pattern: 02-fork never forks a
//! process with more than one thread (`fork::processes::spawn_worker`
//! refuses). Run it with
//! `cargo run --release -p fork --example unsafe_fork > /dev/null`
//! (the children's lines go to stdout, the verdicts to stderr).

use std::io::Write;
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{ForkResult, Pid, fork};

/// How many children to fork.
const FORKS: usize = 10;

/// How long the "progress bar" holds stdout's lock each time it draws.
const DRAWING: Duration = Duration::from_millis(5);

/// A child that has not printed its line by then is stuck: printing one
/// line takes microseconds.
const DEADLINE: Duration = Duration::from_millis(500);

fn main() {
    thread::spawn(|| {
        loop {
            let drawing = std::io::stdout().lock();
            thread::sleep(DRAWING);
            drop(drawing);
            thread::sleep(Duration::from_millis(1));
        }
    });
    thread::sleep(Duration::from_millis(20));

    let mut hung = 0;
    for n in 1..=FORKS {
        // SAFETY: deliberately NOT upheld, which is the point of this
        // example: the process has two threads, so the child may only call
        // async-signal-safe functions, and `println!` (a lock) is not one.
        // The consequence demonstrated is a child stuck on that lock; the
        // parent kills such a child after `DEADLINE`, and the child never
        // returns into `main` (it ends with `_exit`).
        match unsafe { fork() } {
            Ok(ForkResult::Child) => {
                println!("child {n}: hello");
                let _ = std::io::stdout().flush();
                // SAFETY: `_exit` has no preconditions.
                unsafe { libc::_exit(0) }
            }
            Ok(ForkResult::Parent { child }) => {
                let verdict = if finished_within(child, DEADLINE) {
                    "printed its line and exited"
                } else {
                    hung += 1;
                    let _ = kill(child, Signal::SIGKILL);
                    let _ = waitpid(child, None);
                    "HUNG in println! (stdout's lock was copied while held); killed"
                };
                eprintln!("fork {n:>2}: child {verdict}");
            }
            Err(e) => eprintln!("fork {n:>2}: fork failed: {e}"),
        }
    }
    eprintln!("{hung} of {FORKS} children hung");
}

/// Polls the child until it exits or `deadline` passes.
fn finished_within(child: Pid, deadline: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < deadline {
        match waitpid(child, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => thread::sleep(Duration::from_millis(1)),
            _ => return true,
        }
    }
    false
}
