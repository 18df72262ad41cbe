//! The CPU time this thread has used so far, as the kernel counts it
//! (`getrusage(2)`): what steps 2 and 3 set against the wall clock.

use std::time::Duration;

use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::time::TimeVal;

/// User plus system time of this thread so far, and how many times it went
/// to sleep of its own accord (voluntary context switches: a `park`, an
/// `epoll_wait`, a blocking `read`).
pub fn cpu_time() -> (Duration, i64) {
    // This thread only: a `Delay`'s own thread, asleep, must not count.
    let usage = getrusage(UsageWho::RUSAGE_THREAD).expect("getrusage works on Linux");
    let cpu = duration(usage.user_time()) + duration(usage.system_time());
    (cpu, usage.voluntary_context_switches())
}

fn duration(tv: TimeVal) -> Duration {
    // The kernel never reports negative times.
    let secs = u64::try_from(tv.tv_sec()).unwrap_or(0);
    let micros = u64::try_from(tv.tv_usec()).unwrap_or(0);
    Duration::from_secs(secs) + Duration::from_micros(micros)
}

/// Runs `f`, and prints its wall and CPU time, how much of one core that
/// CPU time was, and how many times the thread went to sleep.
///
/// A thread that never sleeps asks for a whole core; it gets less when
/// other processes want the machine too, so "of a core" is 100% only on a
/// quiet machine, while "went to sleep 0 times" is true on any.
pub fn measured<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let (started, (cpu_before, sleeps_before)) = (std::time::Instant::now(), cpu_time());
    let output = f();
    let wall = started.elapsed();
    let (cpu_after, sleeps_after) = cpu_time();
    let cpu = cpu_after - cpu_before;
    println!(
        "{what}: wall {:.1} ms, CPU {:.1} ms: {:.0}% of a core, voluntary sleeps {}",
        wall.as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e3,
        100.0 * cpu.as_secs_f64() / wall.as_secs_f64(),
        sleeps_after - sleeps_before
    );
    output
}
