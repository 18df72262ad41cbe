//! Made-up rows for tests of what is drawn from a run: no server, no
//! stage, just outcomes at known times. A module of its own, below
//! `timeline` (whose tests draw them) and `testing` (which passes them
//! on), so that neither has to import the other.

use crate::outcome::{ErrorKind, Failure};
use crate::store::{Lane, Row};
use crate::tasks::{Counters, TaskPoll, TaskTrace, TaskWake, WakeBy};
use crate::workload::Item;

/// A row per item, dealt round `lanes` lanes: each item starts 10 ms after
/// the one before it on its lane and takes 9 ms, and one in seven (ids 3,
/// 10, 17...) failed with `KO <500>`, whose `<` and `>` a picture must
/// escape.
///
/// ```
/// use testbed::sample::rows_on_lanes;
/// use testbed::workload::items;
///
/// let rows = rows_on_lanes(&items(8, 1), 4);
/// assert_eq!((rows[5].lane.0, rows[5].started_us), (1, 10_000));
/// assert!(rows[3].outcome.is_err());
/// ```
pub fn rows_on_lanes(items: &[Item], lanes: u32) -> Vec<Row> {
    items
        .iter()
        .map(|item| {
            let i = item.id.0;
            let slot = i / u64::from(lanes);
            Row {
                id: item.id,
                outcome: if i % 7 == 3 {
                    Err(Failure::new(ErrorKind::Ko, "KO <500>"))
                } else {
                    Ok(item.expected_result())
                },
                started_us: slot * 10_000,
                finished_us: slot * 10_000 + 9_000,
                lane: Lane((i % u64::from(lanes)) as u32),
                db_conn: 1,
            }
        })
        .collect()
}

/// How long the blocking poll of [`task_trace`] holds the thread, µs.
pub const BLOCKING_POLL_US: u64 = 200_000;

/// How many self-wakes in a row [`task_trace`] makes.
pub const SELF_WAKE_STREAK: usize = 6;

/// A made-up executor trace, the same on every call: `tasks` tasks
/// (1 to `tasks`) spawned at once, each polled once for its spawn and then
/// once per round for `rounds` rounds, the last round's poll ending it.
/// Each round's wakes cycle through a ready socket, a due timer and the
/// previous task's poll. Before the first round, task 1 wakes itself [`SELF_WAKE_STREAK`] times in a row, each poll 40 µs; and,
/// with `blocking`, a socket wakes it for one poll of
/// [`BLOCKING_POLL_US`], during which nothing else is polled. Polls take
/// 30 µs, one after the other; the loop sleeps 1 ms between rounds.
///
/// It makes `tasks * (rounds + 1) + SELF_WAKE_STREAK` polls, one more with
/// `blocking`, each caused by one wake.
///
/// ```
/// use testbed::sample::{BLOCKING_POLL_US, task_trace};
///
/// let trace = task_trace(3, 2, true);
/// assert_eq!(trace.polls.len(), 3 * 3 + 6 + 1);
/// let longest = trace.polls.iter().map(|p| p.busy_us).max();
/// assert_eq!(longest, Some(BLOCKING_POLL_US));
/// assert_eq!(task_trace(3, 2, true), trace, "deterministic");
/// ```
pub fn task_trace(tasks: u64, rounds: u32, blocking: bool) -> TaskTrace {
    let mut sim = Sim::default();
    for task in 1..=tasks {
        sim.wake(task, WakeBy::Spawn);
        sim.alive += 1;
        sim.t += 2;
    }
    for task in 1..=tasks {
        let cause = sim.first_pending(task);
        sim.poll(task, cause, 30, false);
    }
    sim.streak_and_block(blocking);
    for round in 0..rounds {
        sim.t += 1_000;
        for task in 1..=tasks {
            let by = match (task + u64::from(round)) % 3 {
                0 => WakeBy::Io,
                1 => WakeBy::Timer,
                _ => match sim.last {
                    Some(waker) if waker != task => WakeBy::Task(waker),
                    _ => WakeBy::Io,
                },
            };
            let cause = sim.wake(task, by);
            sim.poll(task, Some(cause), 30, round + 1 == rounds);
        }
    }
    sim.trace
}

/// A made-up trace of one task that spins: spawned and polled once, then
/// for each streak of `streaks` a ready socket wakes it and it is polled,
/// and then it wakes itself before each `Pending` that many times, each
/// self-wake followed by its poll (1 µs each, a poll every 2 µs). The
/// last poll ends the task. So `&[n]` makes one spin of `n` polls and
/// `&[n, m]` two, a socket's wake between them.
///
/// ```
/// use testbed::sample::spin_trace;
/// use testbed::tasks::WakeBy;
///
/// let trace = spin_trace(&[5, 7]);
/// assert_eq!(trace.polls.len(), 1 + (1 + 5) + (1 + 7));
/// let itself = trace.wakes.iter().filter(|w| w.by == WakeBy::Itself);
/// assert_eq!(itself.count(), 12);
/// ```
pub fn spin_trace(streaks: &[u32]) -> TaskTrace {
    let mut sim = Sim::default();
    let mut cause = sim.wake(1, WakeBy::Spawn);
    sim.alive = 1;
    sim.poll_spinning(cause, false);
    for (n, &streak) in streaks.iter().enumerate() {
        sim.t += 500;
        cause = sim.wake(1, WakeBy::Io);
        for i in 0..=streak {
            let last = n + 1 == streaks.len() && i == streak;
            sim.poll_spinning(cause, last);
            if i < streak {
                cause = sim.wake(1, WakeBy::Itself);
            }
            sim.t += 2;
        }
    }
    sim.trace
}

/// The executor of [`task_trace`]: one thread, one poll after another.
#[derive(Default)]
struct Sim {
    trace: TaskTrace,
    /// Now, µs.
    t: u64,
    /// The task polled last.
    last: Option<u64>,
    alive: u32,
    /// Wakes not yet polled: (index, task).
    pending: Vec<(u32, u64)>,
}

impl Sim {
    /// `task` woken now (during the last poll when a task woke it).
    fn wake(&mut self, task: u64, by: WakeBy) -> u32 {
        let at_us = match by {
            WakeBy::Task(_) => self.t.saturating_sub(15),
            _ => self.t,
        };
        self.trace.wakes.push(TaskWake { at_us, task, by });
        let index = (self.trace.wakes.len() - 1) as u32;
        self.pending.push((index, task));
        index
    }

    fn first_pending(&self, task: u64) -> Option<u32> {
        self.pending
            .iter()
            .find(|&&(_, t)| t == task)
            .map(|&(i, _)| i)
    }

    fn poll(&mut self, task: u64, cause: Option<u32>, busy_us: u64, ready: bool) {
        self.pending.retain(|&(i, _)| Some(i) != cause);
        self.trace.counters.push(Counters {
            at_us: self.t,
            alive: self.alive,
            ready: self.pending.len() as u32,
        });
        self.trace.polls.push(TaskPoll {
            task,
            start_us: self.t,
            busy_us,
            cause,
            ready,
        });
        if ready {
            self.alive -= 1;
        }
        self.last = Some(task);
        self.t += busy_us + 10;
    }

    /// One poll of 1 µs of task 1, the spinning task of [`spin_trace`]:
    /// now is left at its start, when it may wake itself.
    fn poll_spinning(&mut self, cause: u32, ready: bool) {
        let start = self.t;
        self.poll(1, Some(cause), 1, ready);
        self.t = start;
    }

    /// Task 1 spins on itself, then (with `blocking`) blocks the thread.
    fn streak_and_block(&mut self, blocking: bool) {
        self.t += 1_000;
        let mut cause = self.wake(1, WakeBy::Timer);
        for i in 0..SELF_WAKE_STREAK {
            let start = self.t;
            self.poll(1, Some(cause), 40, false);
            if i + 1 < SELF_WAKE_STREAK {
                // Woken by its own poll, before it returned `Pending`.
                self.t = start + 20;
                cause = self.wake(1, WakeBy::Itself);
                self.t = start + 50;
            }
        }
        if blocking {
            self.t += 1_000;
            let cause = self.wake(1, WakeBy::Io);
            self.poll(1, Some(cause), BLOCKING_POLL_US, false);
        }
    }
}
