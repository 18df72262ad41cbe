//! The no-spin check: a wait must cost almost no CPU.
//!
//! Every asynchronous rung rests on one promise: while nothing can happen,
//! the thread sleeps in the kernel (in `epoll_wait`, `io_uring_enter`, a
//! condition variable) until something does. A loop that asks "ready yet?"
//! over and over gets the same answers, so a test that only checks answers
//! passes it; only its cost gives it away. [`assert_quiet`] measures that
//! cost: the CPU time the calling thread spent across a wait
//! (`getrusage(RUSAGE_THREAD)`), as a share of the wait's wall-clock time.
//!
//! The bound is a ratio, not a time, so that it holds on a loaded machine:
//! a thread that sleeps uses no CPU however long the wait, while one that
//! spins uses whatever share of a core the scheduler gives it, far more
//! than a tenth with a couple of other busy processes beside it. A correct
//! solution that waits 200 ms spends well under a millisecond of it.
//!
//! On a machine so loaded that a spinning thread gets less than a tenth of
//! a core (a spin of 100 ms was measured at 9 ms of CPU in 268 ms, with
//! eight times more runnable threads than cores), the CPU share alone would
//! call it quiet. So the check also reads how long the thread was
//! *runnable*: on the CPU or waiting in the run queue for it
//! (`/proc/thread-self/schedstat`). A spinning thread is runnable all the
//! time, whatever its share of the CPU; a sleeping one only for the
//! moments after each wake-up.
//!
//! For futures, [`Polls`] counts how often one was polled: a future that
//! wakes itself before returning `Pending` is polled thousands of times
//! in a wait where a correct one is polled a handful of times.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The share of a wait's wall-clock time its thread may spend on the CPU.
/// A tenth leaves a correct loop room for its real work (a few system
/// calls per event) and is still far below what any spinning loop uses.
pub const CPU_SHARE: f64 = 0.10;

/// The CPU time (user and system) the calling thread has used so far.
///
/// # Panics
///
/// If `getrusage` fails, which it cannot do with these arguments on
/// Linux: the check would measure nothing.
pub fn thread_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: `usage` is a valid, writable `rusage`; getrusage fills it in
    // completely when it returns 0, which is checked before it is read.
    let usage = unsafe {
        assert_eq!(
            libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr()),
            0,
            "getrusage(RUSAGE_THREAD) failed"
        );
        usage.assume_init()
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The share of a wait's wall-clock time its thread may be runnable (on
/// the CPU or waiting for it): a sleeping thread is runnable only briefly
/// after each wake-up, a spinning one all the time.
pub const RUNNABLE_SHARE: f64 = 0.80;

/// The time the calling thread has been runnable so far (on the CPU, or in
/// the run queue waiting for it), if the kernel keeps that count
/// (`/proc/thread-self/schedstat`: CPU time, run-queue wait, time slices).
pub fn thread_runnable() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut fields = stat.split_whitespace().map(|f| f.parse::<u64>().ok());
    let (on_cpu, waiting) = (fields.next()??, fields.next()??);
    Some(Duration::from_nanos(on_cpu + waiting))
}

/// What a wait cost: its wall-clock time and its thread's CPU time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaitCost {
    /// From the start of the wait to its end.
    pub wall: Duration,
    /// The calling thread's CPU time (user and system) in that span.
    pub cpu: Duration,
    /// The time the thread was runnable in that span (on the CPU or
    /// waiting for it), where the kernel says.
    pub runnable: Option<Duration>,
}

impl WaitCost {
    /// Runs `wait` on the calling thread and measures it.
    pub fn of<T>(wait: impl FnOnce() -> T) -> (T, WaitCost) {
        let (cpu, runnable, wall) = (thread_cpu(), thread_runnable(), Instant::now());
        let value = wait();
        let cost = WaitCost {
            wall: wall.elapsed(),
            cpu: thread_cpu().saturating_sub(cpu),
            runnable: runnable
                .zip(thread_runnable())
                .map(|(before, after)| after.saturating_sub(before)),
        };
        (value, cost)
    }

    /// Whether the thread slept through the wait: at most [`CPU_SHARE`] of
    /// it on the CPU, and at most [`RUNNABLE_SHARE`] of it runnable.
    pub fn is_quiet(&self) -> bool {
        let wall = self.wall.as_secs_f64();
        self.cpu.as_secs_f64() <= wall * CPU_SHARE
            && self
                .runnable
                .is_none_or(|r| r.as_secs_f64() <= wall * RUNNABLE_SHARE)
    }

    /// The failure's sentence: "busy-waiting: N ms of CPU in a W ms wait".
    pub fn describe(&self, what: &str) -> String {
        let runnable = self.runnable.map_or_else(String::new, |r| {
            format!(", runnable for {} ms of it", r.as_millis())
        });
        format!(
            "busy-waiting: {} ms of CPU in a {} ms wait{runnable} ({what}); a thread with \
             nothing to do should sleep until it is woken (at most {:.0}% of the wait on \
             the CPU), not ask again and again",
            self.cpu.as_millis(),
            self.wall.as_millis(),
            CPU_SHARE * 100.0
        )
    }
}

/// Runs `wait` on the calling thread and panics, saying "busy-waiting: N ms
/// of CPU in a W ms wait", if the thread spent more than [`CPU_SHARE`] of
/// the wait's wall-clock time on the CPU. `what` names the wait for the
/// message ("the receiver waiting for a send").
///
/// Measure a wait of a couple of hundred milliseconds, with the setup
/// (servers, executors, connections) done before: fixed costs then stay
/// far below the bound, and a spinning loop far above it.
///
/// ```
/// use std::time::Duration;
/// use testbed::testing::assert_quiet;
///
/// // A sleeping thread passes.
/// assert_quiet("a sleep", || std::thread::sleep(Duration::from_millis(50)));
///
/// // A spinning one does not.
/// let spin = std::panic::catch_unwind(|| {
///     assert_quiet("a spin", || {
///         let start = std::time::Instant::now();
///         while start.elapsed() < Duration::from_millis(50) {}
///     })
/// });
/// let message = *spin.expect_err("a spin fails").downcast::<String>().expect("a message");
/// assert!(message.starts_with("busy-waiting: "), "the message says what it saw: {message}");
/// ```
#[track_caller]
pub fn assert_quiet<T>(what: &str, wait: impl FnOnce() -> T) -> T {
    let (value, cost) = WaitCost::of(wait);
    assert!(cost.is_quiet(), "{}", cost.describe(what));
    value
}

/// [`assert_quiet`] on a thread of its own, bounded: runs `wait` there,
/// and panics with `never` (a sentence naming what never came: "the
/// receiver never got the value sent after 200 ms") if it has not returned
/// within `deadline`, or with "busy-waiting: ..." if its thread spent more
/// than [`CPU_SHARE`] of the wait on the CPU. A loop that spins without
/// ever letting the others run hangs rather than spins: the deadline
/// catches that one, with a sentence instead of a watchdog's timeout.
///
/// ```
/// use std::time::Duration;
/// use testbed::testing::assert_quiet_within;
///
/// let slept = assert_quiet_within(Duration::from_secs(2), "the sleep never ended", "a sleep", || {
///     std::thread::sleep(Duration::from_millis(50));
///     "slept"
/// });
/// assert_eq!(slept, "slept", "the work's value comes back");
/// ```
#[track_caller]
pub fn assert_quiet_within<T: Send + 'static>(
    deadline: Duration,
    never: &str,
    what: &str,
    wait: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (value, cost) =
        super::within_or(deadline, &format!("{never} (still waiting)"), move || {
            WaitCost::of(wait)
        });
    assert!(cost.is_quiet(), "{}", cost.describe(what));
    value
}

/// A shared count of polls, read while or after [`Polls::count`]'s future
/// runs (single-threaded executors: the count is an `Rc`).
#[derive(Debug, Clone, Default)]
pub struct Polls(Rc<Cell<u64>>);

impl Polls {
    /// A count at zero.
    pub fn new() -> Polls {
        Polls::default()
    }

    /// `future`, counting each of its polls here.
    pub fn count<F: Future>(&self, future: F) -> Counted<F> {
        Counted {
            future: Box::pin(future),
            polls: self.clone(),
        }
    }

    /// How many polls so far.
    pub fn get(&self) -> u64 {
        self.0.get()
    }

    /// Panics if the future was polled more than `most` times: "`what` was
    /// polled N times, where waking only when something happened takes at
    /// most M".
    #[track_caller]
    pub fn assert_at_most(&self, most: u64, what: &str) {
        let polls = self.get();
        assert!(
            polls <= most,
            "busy-waiting: {what} was polled {polls} times, where a future woken only \
             when something happened is polled at most {most} times (does something \
             wake the task before every Pending?)"
        );
    }
}

/// A future whose polls are counted by a [`Polls`].
#[derive(Debug)]
pub struct Counted<F> {
    future: Pin<Box<F>>,
    polls: Polls,
}

impl<F: Future> Future for Counted<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.polls.0.set(self.polls.0.get() + 1);
        self.future.as_mut().poll(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sleep_is_quiet_and_a_spin_is_not() {
        let ((), sleep) = WaitCost::of(|| std::thread::sleep(Duration::from_millis(100)));
        assert!(sleep.is_quiet(), "{}", sleep.describe("a sleep"));
        let ((), spin) = WaitCost::of(|| {
            let start = Instant::now();
            while start.elapsed() < Duration::from_millis(100) {}
        });
        assert!(
            !spin.is_quiet(),
            "a spin should not pass for quiet: {spin:?}"
        );
        assert!(
            spin.describe("x").starts_with("busy-waiting: "),
            "the message names what it saw"
        );
    }

    #[test]
    fn a_spin_starved_of_cpu_is_still_not_quiet() {
        // What a spin measured on a machine with eight runnable threads a
        // core: little CPU, but runnable all the time.
        let starved = WaitCost {
            wall: Duration::from_millis(268),
            cpu: Duration::from_millis(9),
            runnable: Some(Duration::from_millis(266)),
        };
        assert!(!starved.is_quiet(), "{starved:?} is a spin");
        // A sleep on the same machine: runnable only after its wake-up.
        let slept = WaitCost {
            runnable: Some(Duration::from_millis(40)),
            ..starved
        };
        assert!(slept.is_quiet(), "{slept:?} is a sleep");
    }

    #[test]
    fn polls_are_counted() {
        let polls = Polls::new();
        let mut future = std::pin::pin!(polls.count(std::future::ready(7)));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        assert_eq!(
            future.as_mut().poll(&mut cx),
            Poll::Ready(7),
            "the counted future gives its inner future's output"
        );
        assert_eq!(polls.get(), 1, "one poll counted");
    }
}
