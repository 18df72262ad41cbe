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
//! Not here: the log itself (`testbed::tasks`), the wakers (`waker.rs`).

use std::cell::Cell;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use testbed::stage::RunStats;
use testbed::tasks::{TaskLog, TaskTrace, WakeBy};

use crate::executor::Executor;
use crate::handle::Shared;
use crate::waker::{TaskId, Wakeups};

impl Executor {
    /// Keeps a log of every wake, poll and turn from now on, for the run's
    /// page; [`Executor::task_trace`] reads it.
    ///
    /// ```
    /// use std::time::Instant;
    /// use executor::Executor;
    /// use testbed::tasks::WakeBy;
    ///
    /// let epoch = Instant::now();
    /// let executor = Executor::new()?;
    /// executor.record_tasks();
    /// executor.block_on(executor.spawn(async { 7 }))?;
    /// let trace = executor.task_trace(epoch).expect("recorded");
    /// assert!(trace.wakes.iter().any(|w| w.task == 1 && w.by == WakeBy::Spawn));
    /// assert!(trace.polls.iter().any(|p| p.task == 1 && p.ready && p.cause.is_some()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn record_tasks(&self) {
        self.handle.shared.wakeups.record();
    }

    /// The tasks recorded since [`Executor::record_tasks`], times counted
    /// from `epoch`; `None` if they are not recorded.
    pub fn task_trace(&self, epoch: Instant) -> Option<TaskTrace> {
        let recorder = self.handle.shared.wakeups.recorder()?;
        Some(recorder.log().since(epoch))
    }

    /// Hands what the loop saw to a run's report: its turns, the tasks'
    /// trace if recorded, and the lints ([`Executor::lint_lines`]). A stage
    /// on this executor calls it once its `block_on` is over.
    ///
    /// ```
    /// use std::time::Instant;
    /// use executor::Executor;
    /// use testbed::stage::RunStats;
    ///
    /// let epoch = Instant::now();
    /// let executor = Executor::new()?;
    /// executor.block_on(async {})?;
    /// let mut run = RunStats::new(1);
    /// executor.report_to(&mut run, epoch);
    /// assert!(run.turns().is_some() && run.lints().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn report_to(&self, run: &mut RunStats, epoch: Instant) {
        run.loop_turns(self.turns().since(epoch));
        if let Some(trace) = self.task_trace(epoch) {
            run.task_trace(trace);
        }
        for line in self.lint_lines() {
            run.lint(line);
        }
    }
}

impl Shared {
    /// A turn starts with `ready` tasks queued: recorded, if tasks are.
    pub(crate) fn count_turn(&self, ready: usize) {
        if let Some(recorder) = self.wakeups.recorder() {
            let alive = self.tasks.borrow().len();
            recorder.log().counters(Instant::now(), alive, ready);
        }
    }
}

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

impl Drop for DoingGuard {
    fn drop(&mut self) {
        DOING.set(self.before);
    }
}

/// The loop of `wakeups`' executor is doing `what` on this thread until the
/// guard is dropped; nothing (`None`) when it records no tasks.
pub(crate) fn doing(wakeups: &Arc<Wakeups>, what: Doing) -> Option<DoingGuard> {
    wakeups.recorder()?;
    let before = DOING.replace((key(wakeups), Some(what)));
    Some(DoingGuard { before })
}

/// The tag of an executor in [`DOING`]: its `Wakeups`' address.
pub(crate) fn key(wakeups: &Arc<Wakeups>) -> usize {
    Arc::as_ptr(wakeups) as usize
}
