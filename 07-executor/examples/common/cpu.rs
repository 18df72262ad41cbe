//! The CPU time this thread has used so far, as the kernel counts it
//! (`getrusage(2)`): what steps 2 and 3 set against the wall clock.

use std::time::Duration;

use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::time::TimeVal;

/// What the kernel counted for this thread so far.
pub struct Usage {
    /// User plus system time.
    cpu: Duration,
    /// Times it went to sleep of its own accord (voluntary context
    /// switches: a `park`, an `epoll_wait`, a blocking `read`).
    sleeps: i64,
    /// Times the kernel took the core away while it still wanted it
    /// (involuntary context switches), to give it to another thread.
    preempted: i64,
}

/// This thread's usage so far.
pub fn usage() -> Usage {
    // This thread only: a `Delay`'s own thread, asleep, must not count.
    let usage = getrusage(UsageWho::RUSAGE_THREAD).expect("getrusage works on Linux");
    Usage {
        cpu: duration(usage.user_time()) + duration(usage.system_time()),
        sleeps: usage.voluntary_context_switches(),
        preempted: usage.involuntary_context_switches(),
    }
}

fn duration(tv: TimeVal) -> Duration {
    // The kernel never reports negative times.
    let secs = u64::try_from(tv.tv_sec()).unwrap_or(0);
    let micros = u64::try_from(tv.tv_usec()).unwrap_or(0);
    Duration::from_secs(secs) + Duration::from_micros(micros)
}

/// Runs `f`, and prints its wall and CPU time, how much of one core that
/// CPU time was, how many times the thread went to sleep, and how many
/// times the kernel took the core from it.
///
/// A thread that never sleeps asks for a whole core; it gets less when
/// other processes want the machine too, so "of a core" is 100% only on a
/// quiet machine, while "slept 0 times" is true on any, and "preempted"
/// counts the times it was made to share.
pub fn measured<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let (started, before) = (std::time::Instant::now(), usage());
    let output = f();
    let wall = started.elapsed();
    let after = usage();
    let cpu = after.cpu - before.cpu;
    println!(
        "{what}: wall {:.1} ms, CPU {:.1} ms: {:.0}% of a core; sleeps {}, preemptions {}",
        wall.as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e3,
        100.0 * cpu.as_secs_f64() / wall.as_secs_f64(),
        after.sleeps - before.sleeps,
        after.preempted - before.preempted
    );
    output
}
