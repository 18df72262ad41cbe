//! Is the stage's thread blocked on a lock? What the kernel says.
//!
//! A one-thread event loop that stops recording may be waiting on the
//! server (the watchdog's usual word), or may never get back to its loop
//! at all: a task locked a `std::sync::Mutex`, held the guard across an
//! `.await`, and the next task to lock it blocks the only thread. An
//! executor cannot see that, since it is no longer running; the kernel
//! can. `/proc/self/task/TID/syscall` holds the system call a thread is
//! blocked in, its number first: `futex` (202 on x86_64) is a lock or a
//! condition variable, which a stage's loop never sleeps in (it sleeps in
//! `epoll_wait`, `poll` or `io_uring_enter`).
//!
//! So the watchdog notes the thread that runs the stage when it starts
//! ([`Monitor::start`](super::Monitor::start) runs on it), and on a stall
//! adds [`LOCKED`] when that thread is in `futex`.
//!
//! The kernel also counts, per thread, the CPU time it used and the times
//! it gave the CPU up to wait ([`thread_usage`]): an executor that sees a
//! poll take 16 ms asks it whether the poll held the thread (computed, or
//! blocked in a system call) or whether the thread was only preempted, on
//! a machine busy with other work.

use std::time::Duration;

use nix::sys::resource::{UsageWho, getrusage};
use nix::unistd::Pid;

/// What the watchdog adds to a stall when the stage's thread is in `futex`.
pub const LOCKED: &str = "the stage's thread is blocked on a lock (futex): a std Mutex held \
                          across an .await, or a lock never released";

/// The calling thread's id, for [`blocked_on_lock`] to look at later.
pub fn this_thread() -> Pid {
    nix::unistd::gettid()
}

/// Is thread `tid` of this process blocked in `futex` now? `false` when
/// it cannot be told (no `/proc`, the thread has ended, or it is running).
pub fn blocked_on_lock(tid: Pid) -> bool {
    let path = format!("/proc/self/task/{tid}/syscall");
    std::fs::read_to_string(path).is_ok_and(|text| in_futex(&text))
}

/// What the kernel counted of the calling thread so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadUsage {
    /// CPU time used, user and system.
    pub cpu: Duration,
    /// Times it waited: blocked in a system call (a sleep, a read, a lock),
    /// not preempted.
    pub waits: u64,
    /// Times the kernel preempted it to run something else.
    pub preempted: u64,
}

/// The calling thread's [`ThreadUsage`] (`getrusage(RUSAGE_THREAD)`, one
/// system call); `None` if the kernel refuses.
///
/// ```
/// let before = testbed::watchdog::lock::thread_usage().expect("Linux counts it");
/// std::thread::sleep(std::time::Duration::from_millis(1));
/// let after = testbed::watchdog::lock::thread_usage().expect("Linux counts it");
/// assert!(after.waits > before.waits, "a sleep waits");
/// ```
pub fn thread_usage() -> Option<ThreadUsage> {
    let usage = getrusage(UsageWho::RUSAGE_THREAD).ok()?;
    let micros = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(u64::try_from(t.tv_sec()).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec()).unwrap_or(0))
    };
    Some(ThreadUsage {
        cpu: micros(usage.user_time()) + micros(usage.system_time()),
        waits: u64::try_from(usage.voluntary_context_switches()).unwrap_or(0),
        preempted: u64::try_from(usage.involuntary_context_switches()).unwrap_or(0),
    })
}

/// The first field of a `syscall` file is the number of the call the
/// thread is blocked in ("running" when it is not in one).
fn in_futex(syscall: &str) -> bool {
    syscall
        .split_whitespace()
        .next()
        .and_then(|number| number.parse::<libc::c_long>().ok())
        == Some(libc::SYS_futex)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex, mpsc};
    use std::time::{Duration, Instant};

    use super::*;

    #[test]
    fn the_first_field_of_the_syscall_file_is_the_call() {
        let futex = format!(
            "{} 0x7f 0x80 0x2 0x0 0x0 0x0 0x7ffd 0x7f12",
            libc::SYS_futex
        );
        assert!(in_futex(&futex));
        assert!(!in_futex("running"));
        let epoll = format!("{} 0x3 0x7ffd 0x400 0xffffffff", libc::SYS_epoll_wait);
        assert!(!in_futex(&epoll));
    }

    /// A thread that waits for a `Mutex` another thread holds is seen in
    /// `futex`; a running one is not.
    #[test]
    fn a_thread_waiting_for_a_held_mutex_is_seen_in_futex() {
        assert!(!blocked_on_lock(this_thread()), "this thread is running");
        let lock = Arc::new(Mutex::new(()));
        let held = lock.lock().expect("not poisoned");
        let (tid_tx, tid_rx) = mpsc::channel();
        let waiter = {
            let lock = lock.clone();
            std::thread::spawn(move || {
                tid_tx.send(this_thread()).expect("the test waits for it");
                drop(lock.lock());
            })
        };
        let tid = tid_rx.recv().expect("the thread starts");
        // It blocks a moment after it sends its id: look until it does, for
        // at most ten seconds.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !blocked_on_lock(tid) {
            assert!(Instant::now() < deadline, "thread {tid} never blocked");
            std::thread::sleep(Duration::from_millis(1));
        }
        drop(held);
        waiter.join().expect("it gets the lock once released");
    }
}
