//! What a run reports: its counters ([`Stats`]), the fibers that panicked
//! ([`FiberPanic`]), and, when it cannot finish, why ([`RunError`]).
//!
//! Not here: printing any of it (the stage's `run_stats` turns a
//! [`Summary`] into the report's `stage_stats`).

use std::io;

use super::deadlock::Deadlock;
use super::table::FiberId;
use super::{Inner, State};

/// Counters of a run, for the report and the curious.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Fibers spawned.
    pub spawned: u64,
    /// The most fibers alive at once.
    pub peak_live: usize,
    /// Switches into a fiber (each resume).
    pub switches: u64,
    /// Calls to `poll`, the only place the thread sleeps.
    pub polls: u64,
    /// Timers that fired (sleeps ending, timeouts).
    pub timers_fired: u64,
    /// Fiber stacks created; the other fibers reused one.
    pub stacks_created: usize,
    /// The size of each fiber stack, in bytes.
    pub stack_size: usize,
}

/// A fiber that panicked: the panic was caught at the fiber's edge and the
/// other fibers went on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FiberPanic {
    /// Which fiber.
    pub fiber: FiberId,
    /// The panic's message.
    pub message: String,
}

/// What [`Scheduler::run`](crate::Scheduler::run) reports when every fiber
/// has finished.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// The run's counters.
    pub stats: Stats,
    /// Every fiber that panicked, in order.
    pub panics: Vec<FiberPanic>,
    /// Each wake-up of the loop: when, how long it slept, how many sockets
    /// were ready, timers fired, fibers resumed.
    pub turns: testbed::turns::TurnLog,
    /// The longest resume of a fiber that held the thread for
    /// [`LONG_POLL`](testbed::long_poll::LONG_POLL) or more, if any.
    pub long_resume: Option<LongResume>,
}

/// A fiber that kept the thread: between its resume and its next switch,
/// no other fiber ran, no socket was read, no timer fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LongResume {
    /// The fiber.
    pub fiber: FiberId,
    /// How long the resume held the thread.
    pub took: std::time::Duration,
    /// When it began, from the scheduler's creation.
    pub at: std::time::Duration,
    /// How many resumes held the thread that long, this one included.
    pub count: u64,
}

impl std::fmt::Display for LongResume {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "one resume of {} took {} ms at {:.2} s: every connection and timer waited \
             behind it (a blocking call or a long computation in a fiber: a fiber switches only \
             where it waits)",
            self.fiber,
            self.took.as_millis(),
            self.at.as_secs_f64()
        )?;
        if self.count > 1 {
            write!(f, "; {} resumes took 10 ms or more", self.count)?;
        }
        Ok(())
    }
}

/// Why [`Scheduler::run`](crate::Scheduler::run) stopped before every fiber
/// finished.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Fibers are blocked and nothing can wake them. They have been
    /// unwound (their destructors ran) so the scheduler is empty again.
    #[error("{0}")]
    Deadlock(Deadlock),
    /// `poll` failed.
    #[error("poll failed: {0}")]
    Io(#[from] io::Error),
    /// `run` was called while a scheduler was already running on this
    /// thread (from inside a fiber, typically).
    #[error("a scheduler is already running on this thread: fibers cannot run a scheduler")]
    Nested,
}

impl Inner {
    /// Records a fiber's panic and returns it.
    pub(super) fn record_panic(&self, payload: &(dyn std::any::Any + Send)) -> FiberPanic {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with a non-string payload".to_owned());
        let fiber = self
            .current
            .get()
            .expect("a fiber body runs as the current fiber");
        let panic = FiberPanic { fiber, message };
        self.state.borrow_mut().panics.push(panic.clone());
        panic
    }
}

impl State {
    /// The counters, with the stack pool's.
    pub(super) fn stats(&self) -> Stats {
        Stats {
            stacks_created: self.stacks.created(),
            ..self.stats.clone()
        }
    }
}
