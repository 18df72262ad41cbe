//! Long polls: one step of a loop (a task's poll, a fiber's resume) that
//! held the loop's only thread so long that every connection and timer
//! waited behind it.
//!
//! A loop that runs its tasks on one thread can time each step with two
//! reads of the clock, which cost no system call (`Instant::now` is the
//! vDSO). But the clock cannot tell a step that held the thread (a
//! blocking call, a long computation) from an ordinary one during which
//! the kernel preempted the thread to run something else, which on a busy
//! machine of two cores happens for as long. The kernel can tell
//! (`getrusage`: CPU used, times blocked in a system call, times
//! preempted), at the cost of a system call, and a loop that asked at
//! every turn would add one to every wake-up of an otherwise lean loop.
//!
//! So [`LongPolls`] asks only once a step has been long by the clock:
//!
//! - the first long step is held if the kernel never preempted the thread
//!   since the loop began, or if the thread used the threshold's worth of
//!   CPU since then beyond the time before the step;
//! - from then on the loop asks at the start of each turn
//!   ([`LongPolls::turn`]), and a long step is held if the thread blocked
//!   in a system call during the turn, or used the threshold's worth of CPU
//!   in it (what the kernel counted since the turn began, less the time the
//!   turn spent before the step).
//!
//! A run whose steps are all short makes no system call for this.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use testbed::long_poll::LongPolls;
//!
//! let mut polls = LongPolls::new();
//! polls.turn();
//! let start = Instant::now();
//! std::thread::sleep(Duration::from_millis(15)); // a blocking call
//! let end = Instant::now();
//! assert!(polls.held(start, end), "a sleep holds the thread");
//! ```

use std::time::{Duration, Instant};

use crate::watchdog::lock::{ThreadUsage, thread_usage};

/// How long a step must hold the thread to be a long poll, by default: a
/// normal step does one step of a request, in microseconds, while 10 ms is
/// already as long as a whole simulated reply.
pub const LONG_POLL: Duration = Duration::from_millis(10);

/// A loop's watch for long steps (see the module docs).
#[derive(Debug, Clone)]
pub struct LongPolls {
    threshold: Duration,
    /// A step has been long by the clock: ask the kernel at each turn.
    watching: bool,
    /// When the turn began (or the last long step ended), and what the
    /// kernel had counted of the thread then.
    since: Option<(Instant, ThreadUsage)>,
    /// When the loop began, and what the kernel had counted then.
    began: Option<(Instant, ThreadUsage)>,
}

impl Default for LongPolls {
    fn default() -> LongPolls {
        LongPolls::new()
    }
}

impl LongPolls {
    /// A watch from now, with the threshold [`LONG_POLL`].
    pub fn new() -> LongPolls {
        LongPolls {
            threshold: LONG_POLL,
            watching: false,
            since: None,
            began: thread_usage().map(|usage| (Instant::now(), usage)),
        }
    }

    /// How long a step must take to be looked at.
    pub fn threshold(&self) -> Duration {
        self.threshold
    }

    /// Sets [`LongPolls::threshold`].
    pub fn set_threshold(&mut self, threshold: Duration) {
        self.threshold = threshold;
    }

    /// A turn of the loop begins (after its sleep): once watching, what the
    /// kernel counted so far is the baseline of the turn's steps.
    pub fn turn(&mut self) {
        if self.watching {
            self.since = thread_usage().map(|usage| (Instant::now(), usage));
        }
    }

    /// A step from `start` to `end` took the threshold or more (the caller
    /// checks that first: this asks the kernel): did it hold the thread, or
    /// was the thread preempted?
    pub fn held(&mut self, start: Instant, end: Instant) -> bool {
        let Some(now) = thread_usage() else {
            return true;
        };
        // The CPU the step itself used, at least, counting all the time
        // from `since` to its start as spent running before it.
        let cpu_of_step = |(since, before): (Instant, ThreadUsage)| {
            let ran_before = start.saturating_duration_since(since);
            now.cpu
                .saturating_sub(before.cpu)
                .saturating_sub(ran_before)
        };
        let held = match (self.since, self.began) {
            (Some((since, before)), _) if self.watching => {
                now.waits > before.waits || cpu_of_step((since, before)) >= self.threshold
            }
            (_, Some(began)) => {
                now.preempted == began.1.preempted || cpu_of_step(began) >= self.threshold
            }
            (_, None) => true,
        };
        self.watching = true;
        self.since = Some((end, now));
        held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Computes for `cpu` of CPU time: no sleep, no I/O.
    fn busy(cpu: Duration) {
        let before = thread_usage().expect("Linux counts it").cpu;
        while thread_usage().expect("Linux counts it").cpu - before < cpu {
            std::hint::black_box(0u64);
        }
    }

    #[test]
    fn a_step_that_computes_holds_the_thread_and_a_short_one_asks_nothing() {
        let mut polls = LongPolls::new();
        polls.turn();
        assert!(!polls.watching, "no long step yet: nothing asked");
        let start = Instant::now();
        busy(Duration::from_millis(15));
        assert!(polls.held(start, Instant::now()), "15 ms of CPU");
        polls.turn();
        let start = Instant::now();
        busy(Duration::from_millis(15));
        assert!(
            polls.held(start, Instant::now()),
            "again, judged by its turn"
        );
    }
}
