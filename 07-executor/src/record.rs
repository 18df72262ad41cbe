//! Recording the tasks for the run's page: who woke whom, and every poll.
//!
//! An executor asked to ([`Executor::record_tasks`](crate::Executor::record_tasks))
//! keeps a [`TaskLog`] (testbed's): every wake with its cause, every poll
//! with the wake that caused it, and once per turn the tasks alive and
//! queued. The page draws them as arrows from a wake to the poll it caused.
//!
//! # How a wake knows its cause
//!
//! A waker is only a task number and a flag; it cannot see who calls it.
//! But the loop knows what it is doing when a waker is called on its own
//! thread: spawning, handing out a socket's readiness, firing timers, or
//! polling task N (whose own code, or a primitive it uses, wakes someone).
//! So the loop notes that in a thread-local while it does it, tagged with
//! its executor (two executors may take turns on one thread), and a waker
//! that finds nothing there was called from another thread. Only a
//! recording executor notes anything: one that is not pays one branch per
//! poll and per wake.
//!
//! The log lives beside the ready queue, in the part of the executor
//! other threads may touch, behind a `Mutex`: a wake from another thread
//! records itself too. The whole recording costs about 1% of a run's CPU:
//! `07-executor --items 20000 --conns 100 --latency 0 --timeline x.json`
//! used 0.71 s (user and system, median of six runs) with it and 0.70 s
//! with the stage's `record_tasks` switched off, in one release build.
//!
//! Not here: the log itself (`testbed::tasks`), the wakers (`waker.rs`),
//! the executor's methods that start and read the log (`observe.rs`).

use std::cell::Cell;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use testbed::tasks::{TaskLog, WakeBy};

use crate::schedule::TaskId;

/// What the loop is doing on its thread, as far as a wake's cause goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Doing {
    /// Spawning a task (or starting `block_on`'s future).
    Spawn,
    /// Waking the tasks whose sockets are ready.
    Io,
    /// Firing the timers that are due.
    Timer,
    /// Polling a task.
    Polling(TaskId),
}

thread_local! {
    /// The executor (its [`Wakeups`]' address) and what its loop is doing.
    static DOING: Cell<(usize, Option<Doing>)> = const { Cell::new((0, None)) };
}

/// A wake's index in the log, when it has none (not recording, or the log
/// is full).
pub(crate) const NO_WAKE: u32 = u32::MAX;

/// The log, shared with the wakers.
#[derive(Debug)]
pub(crate) struct Recorder {
    log: Mutex<TaskLog>,
}

impl Recorder {
    pub(crate) fn new() -> Recorder {
        Recorder {
            log: Mutex::new(TaskLog::new()),
        }
    }

    pub(crate) fn log(&self) -> MutexGuard<'_, TaskLog> {
        // Nothing panics while holding it (a push onto a `Vec`).
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Task `task` of the executor at `key` is woken now: record it, with
    /// its cause; returns the wake's index.
    pub(crate) fn woke(&self, key: usize, task: TaskId) -> u32 {
        let by = match DOING.get() {
            (at, Some(doing)) if at == key => match doing {
                Doing::Spawn => WakeBy::Spawn,
                Doing::Io => WakeBy::Io,
                Doing::Timer => WakeBy::Timer,
                Doing::Polling(polled) if polled == task => WakeBy::Itself,
                Doing::Polling(polled) => WakeBy::Task(polled.0),
            },
            _ => WakeBy::Thread,
        };
        let at = Instant::now();
        self.log().woke(at, task.0, by).unwrap_or(NO_WAKE)
    }
}

/// What the loop was doing before; put back when dropped.
pub(crate) struct DoingGuard {
    before: (usize, Option<Doing>),
}

impl DoingGuard {
    /// The loop of the executor tagged `key` is doing `what` on this
    /// thread until the guard is dropped.
    pub(crate) fn new(key: usize, what: Doing) -> DoingGuard {
        let before = DOING.replace((key, Some(what)));
        DoingGuard { before }
    }
}

impl Drop for DoingGuard {
    fn drop(&mut self) {
        DOING.set(self.before);
    }
}
