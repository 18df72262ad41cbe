//! The executor records its tasks: every poll, every wake, and what the
//! ready queue held, for the page of a run.
//!
//! The loop's turns ([`crate::turns`]) say when the loop woke and how much
//! it did; they cannot say *which* task took the time, nor who woke whom.
//! A loop that goes wrong is found there: a task whose one poll held the
//! thread for 200 ms, a task that wakes itself before every `Pending` and
//! so never lets the loop sleep, a task that nothing ever wakes again. An
//! executor that keeps a [`TaskLog`] records, as it runs:
//!
//! - each **wake** of a task ([`TaskLog::woke`]), with what caused it
//!   ([`WakeBy`]): the spawn, a ready socket, a timer, another task's
//!   poll, the task's own poll, another thread;
//! - each **poll** ([`TaskLog::polled`]): when it started, how long it
//!   held the thread, whether it finished the task, and which wake caused
//!   it (so the page draws an arrow from the wake to the poll);
//! - the **counters** the page draws as tracks ([`TaskLog::counters`]):
//!   tasks alive and tasks in the ready queue.
//!
//! # Cheap, bounded, and off unless asked for
//!
//! A run of 20,000 items makes a few hundred thousand polls and wakes, so
//! a record is a few integers pushed onto a `Vec`, and the log keeps at
//! most [`MAX_EVENTS`] records of each kind, counting those it drops. An
//! executor keeps a log only when the run's page is asked for
//! ([`crate::stage::Scenario::record_tasks`]); otherwise it keeps none and
//! pays one branch per poll.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use testbed::tasks::{TaskLog, WakeBy};
//!
//! let epoch = Instant::now();
//! let mut log = TaskLog::new();
//! let spawned = log.woke(epoch, 1, WakeBy::Spawn);
//! let start = epoch + Duration::from_micros(10);
//! log.polled(1, start, start + Duration::from_micros(25), spawned, false);
//! let by_socket = log.woke(start + Duration::from_millis(3), 1, WakeBy::Io);
//! log.counters(start, 1, 0);
//! let trace = log.since(epoch);
//! assert_eq!((trace.polls.len(), trace.wakes.len()), (1, 2));
//! assert_eq!(trace.polls[0].cause, Some(0), "the spawn's wake caused the first poll");
//! assert_eq!(trace.polls[0].busy_us, 25);
//! assert_eq!(by_socket, Some(1));
//! ```

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// How many polls (and, apart, wakes and counter samples) a log keeps.
pub const MAX_EVENTS: usize = 200_000;

/// What woke a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WakeBy {
    /// Spawning it: a new task is woken once, to be polled a first time.
    Spawn,
    /// A socket it waits on is ready (the reactor's wait reported it).
    Io,
    /// One of its timers is due.
    Timer,
    /// Another task's poll: a permit released, a result ready, a message.
    Task(u64),
    /// Its own poll woke it before returning `Pending`: it will be polled
    /// again at once, whatever happens outside (a yield, or a spin).
    Itself,
    /// Another thread: a pool of threads finished its work, say.
    Thread,
}

/// One wake, as stored: times in µs since the run's epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskWake {
    /// When the waker was called.
    pub at_us: u64,
    /// The task woken (0 is the `block_on` future).
    pub task: u64,
    /// Who woke it.
    pub by: WakeBy,
}

/// One poll, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskPoll {
    /// The task polled (0 is the `block_on` future).
    pub task: u64,
    /// When the poll started.
    pub start_us: u64,
    /// How long it held the thread.
    pub busy_us: u64,
    /// The wake that caused it: an index into [`TaskTrace::wakes`]
    /// (`None` if that wake was not kept).
    pub cause: Option<u32>,
    /// The poll returned `Ready`: the task ended there.
    pub ready: bool,
}

/// The counters at one instant, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// When they were read.
    pub at_us: u64,
    /// Tasks spawned and not finished (the `block_on` future not counted).
    pub alive: u32,
    /// Tasks woken and not yet polled.
    pub ready: u32,
}

/// A run's recorded tasks, as the database and the page hold them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskTrace {
    /// The polls kept, in order.
    pub polls: Vec<TaskPoll>,
    /// The wakes kept, in order.
    pub wakes: Vec<TaskWake>,
    /// The counter samples kept, in order.
    pub counters: Vec<Counters>,
    /// Records of any kind made after their kind's log was full: counted,
    /// not kept.
    pub dropped: u64,
}

/// The recorder an executor keeps while a page is asked for (see the
/// module docs). Times are `Instant`s until [`TaskLog::since`] turns them
/// into µs since the run's epoch.
#[derive(Debug, Clone)]
pub struct TaskLog {
    polls: Vec<(u64, Instant, Duration, Option<u32>, bool)>,
    wakes: Vec<(Instant, u64, WakeBy)>,
    counters: Vec<(Instant, u32, u32)>,
    cap: usize,
    dropped: u64,
}

impl Default for TaskLog {
    fn default() -> TaskLog {
        TaskLog::new()
    }
}

impl TaskLog {
    /// An empty log that keeps up to [`MAX_EVENTS`] records of each kind.
    pub fn new() -> TaskLog {
        TaskLog::with_cap(MAX_EVENTS)
    }

    /// An empty log that keeps up to `cap` records of each kind (a test's
    /// small bound).
    pub fn with_cap(cap: usize) -> TaskLog {
        TaskLog {
            polls: Vec::new(),
            wakes: Vec::new(),
            counters: Vec::new(),
            cap,
            dropped: 0,
        }
    }

    /// `task` was woken at `at` by `by`. Returns the wake's index, for the
    /// poll it causes to name ([`TaskLog::polled`]); `None` when the log
    /// of wakes is full.
    pub fn woke(&mut self, at: Instant, task: u64, by: WakeBy) -> Option<u32> {
        if self.wakes.len() >= self.cap {
            self.dropped += 1;
            return None;
        }
        self.wakes.push((at, task, by));
        u32::try_from(self.wakes.len() - 1).ok()
    }

    /// `task` was polled from `start` to `end`, because of the wake
    /// `cause`; `ready` if the poll ended the task.
    pub fn polled(
        &mut self,
        task: u64,
        start: Instant,
        end: Instant,
        cause: Option<u32>,
        ready: bool,
    ) {
        if self.polls.len() >= self.cap {
            self.dropped += 1;
            return;
        }
        let busy = end.saturating_duration_since(start);
        self.polls.push((task, start, busy, cause, ready));
    }

    /// At `at`, `alive` tasks were alive and `ready` were in the ready
    /// queue.
    pub fn counters(&mut self, at: Instant, alive: usize, ready: usize) {
        if self.counters.len() >= self.cap {
            self.dropped += 1;
            return;
        }
        let saturate = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        self.counters.push((at, saturate(alive), saturate(ready)));
    }

    /// Polls kept so far.
    pub fn polls(&self) -> usize {
        self.polls.len()
    }

    /// Records counted but not kept.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The log with times in µs since `epoch`, as stored.
    pub fn since(&self, epoch: Instant) -> TaskTrace {
        let micros = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        let at = |t: Instant| micros(t.saturating_duration_since(epoch));
        TaskTrace {
            polls: self
                .polls
                .iter()
                .map(|&(task, start, busy, cause, ready)| TaskPoll {
                    task,
                    start_us: at(start),
                    busy_us: micros(busy),
                    cause,
                    ready,
                })
                .collect(),
            wakes: self
                .wakes
                .iter()
                .map(|&(t, task, by)| TaskWake {
                    at_us: at(t),
                    task,
                    by,
                })
                .collect(),
            counters: self
                .counters
                .iter()
                .map(|&(t, alive, ready)| Counters {
                    at_us: at(t),
                    alive,
                    ready,
                })
                .collect(),
            dropped: self.dropped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_log_counts_what_it_drops_and_a_poll_names_no_dropped_wake() {
        let epoch = Instant::now();
        let mut log = TaskLog::with_cap(2);
        let kept: Vec<Option<u32>> = (0..4).map(|t| log.woke(epoch, t, WakeBy::Io)).collect();
        assert_eq!(kept, [Some(0), Some(1), None, None]);
        for task in 0..3 {
            log.polled(task, epoch, epoch, kept[task as usize], false);
        }
        let trace = log.since(epoch);
        assert_eq!(
            (trace.wakes.len(), trace.polls.len(), trace.dropped),
            (2, 2, 3)
        );
    }

    #[test]
    fn a_trace_survives_json() {
        let epoch = Instant::now();
        let mut log = TaskLog::new();
        let wake = log.woke(epoch, 3, WakeBy::Task(2));
        log.polled(3, epoch, epoch + Duration::from_millis(12), wake, true);
        log.counters(epoch, 4, 1);
        let trace = log.since(epoch);
        let json = serde_json::to_string(&trace).expect("plain data");
        assert!(json.contains(r#""by":{"task":2}"#), "{json}");
        let back: TaskTrace = serde_json::from_str(&json).expect("it reads back");
        assert_eq!(back, trace);
        assert_eq!(back.polls[0].busy_us, 12_000);
    }
}
