//! The page's data of the executor's tasks: polls, wakes and counters as
//! columns of small numbers, like the bars (`page/data.rs`).
//!
//! A run can keep 200,000 polls and as many wakes ([`crate::tasks::MAX_EVENTS`]):
//! written as objects with named fields that is tens of megabytes for the
//! browser to parse. Here every time is a difference from the one before,
//! and a poll's cause a difference from the previous poll's, so most
//! numbers are one to four digits. Only the polls of the rows the page
//! draws (the [`MAX_ROWS`] busiest, `timeline/task_rows.rs`) are sent; the
//! totals the page states are of the whole trace.

use serde::Serialize;

use crate::tasks::{TaskTrace, WakeBy};
use crate::timeline::legend::LONG_POLL_US;
use crate::timeline::task_rows::{MAX_ROWS, pack};

/// Flags of a poll, one bit each.
const READY: u8 = 1;
const LONG: u8 = 2;
const SELF_WOKEN: u8 = 4;
const CAUSED: u8 = 8;

/// The tasks of one run, in columns. Times are µs since the run's start.
#[derive(Serialize)]
pub(super) struct Tasks {
    /// The rows drawn, busiest first: what each is called.
    rows: Vec<String>,
    /// Rows, tasks and polls not drawn (beyond the busiest rows).
    hidden_rows: usize,
    hidden_tasks: usize,
    hidden_polls: usize,
    /// Totals of the whole trace: what `#tasks` says in its attributes.
    tasks: usize,
    polls: usize,
    wakes: usize,
    arrows: usize,
    long_polls: usize,
    self_wakes: usize,
    longest_poll_us: u64,
    long_us: u64,
    dropped: u64,
    /// Each drawn poll, in order of start: its row, its start as the
    /// difference from the previous one's, how long it held the thread,
    /// its task, its flags (ready 1, long 2, caused by a self-wake 4, has
    /// a cause 8) and, when it has one, its cause's index into the wakes
    /// as the difference from the previous cause (the first: from 0).
    row: Vec<u32>,
    at: Vec<i64>,
    busy: Vec<u64>,
    task: Vec<u64>,
    flags: Vec<u8>,
    cause: Vec<i64>,
    /// Every wake: its instant (a difference), who woke it (0 spawn, 1 a
    /// socket, 2 a timer, 3 a task, 4 itself, 5 another thread), the task
    /// whose poll woke it (-1: none) and that task's row (-1: the outside
    /// track, or a row not drawn).
    wake_at: Vec<i64>,
    wake_by: Vec<u8>,
    wake_from: Vec<i64>,
    wake_row: Vec<i32>,
    /// The counter samples: instant (a difference), tasks alive, ready.
    count_at: Vec<i64>,
    alive: Vec<u32>,
    ready: Vec<u32>,
}

/// `now - before` as JSON writes it (µs fit an i64 for 290,000 years).
fn delta(now: u64, before: u64) -> i64 {
    now as i64 - before as i64
}

impl Tasks {
    /// The columns of `trace`.
    pub(super) fn of(trace: &TaskTrace) -> Tasks {
        let rows = pack(trace);
        let shown = rows.tasks.len().min(MAX_ROWS);
        let wakes = trace.wakes.len();
        let by_itself = |cause: Option<u32>| {
            cause
                .and_then(|c| trace.wakes.get(c as usize))
                .is_some_and(|w| w.by == WakeBy::Itself)
        };
        let mut out = Tasks {
            rows: (0..shown).map(|r| rows.label(r)).collect(),
            hidden_rows: rows.tasks.len() - shown,
            hidden_tasks: rows.tasks[shown..].iter().map(Vec::len).sum(),
            hidden_polls: 0,
            tasks: rows.of_task.len(),
            polls: trace.polls.len(),
            wakes,
            arrows: trace
                .polls
                .iter()
                .filter(|p| p.cause.is_some_and(|c| (c as usize) < wakes))
                .count(),
            long_polls: trace
                .polls
                .iter()
                .filter(|p| p.busy_us >= LONG_POLL_US)
                .count(),
            self_wakes: trace
                .wakes
                .iter()
                .filter(|w| w.by == WakeBy::Itself)
                .count(),
            longest_poll_us: trace.polls.iter().map(|p| p.busy_us).max().unwrap_or(0),
            long_us: LONG_POLL_US,
            dropped: trace.dropped,
            row: Vec::new(),
            at: Vec::new(),
            busy: Vec::new(),
            task: Vec::new(),
            flags: Vec::new(),
            cause: Vec::new(),
            wake_at: Vec::with_capacity(wakes),
            wake_by: Vec::with_capacity(wakes),
            wake_from: Vec::with_capacity(wakes),
            wake_row: Vec::with_capacity(wakes),
            count_at: Vec::new(),
            alive: trace.counters.iter().map(|c| c.alive).collect(),
            ready: trace.counters.iter().map(|c| c.ready).collect(),
        };
        let mut order: Vec<usize> = (0..trace.polls.len()).collect();
        order.sort_by_key(|&i| (trace.polls[i].start_us, i));
        let (mut start_before, mut cause_before) = (0, 0);
        for i in order {
            let p = &trace.polls[i];
            let Some(row) = rows.shown(p.task, shown) else {
                out.hidden_polls += 1;
                continue;
            };
            let cause = p.cause.filter(|&c| (c as usize) < wakes);
            let flag = |on: bool, bit: u8| if on { bit } else { 0 };
            out.row.push(row);
            out.at.push(delta(p.start_us, start_before));
            out.busy.push(p.busy_us);
            out.task.push(p.task);
            out.flags.push(
                flag(p.ready, READY)
                    | flag(p.busy_us >= LONG_POLL_US, LONG)
                    | flag(by_itself(cause), SELF_WOKEN)
                    | flag(cause.is_some(), CAUSED),
            );
            if let Some(c) = cause {
                out.cause.push(i64::from(c) - cause_before);
                cause_before = i64::from(c);
            }
            start_before = p.start_us;
        }
        let mut before = 0;
        for w in &trace.wakes {
            out.wake_at.push(delta(w.at_us, before));
            before = w.at_us;
            let (code, from) = match w.by {
                WakeBy::Spawn => (0, None),
                WakeBy::Io => (1, None),
                WakeBy::Timer => (2, None),
                WakeBy::Task(by) => (3, Some(by)),
                WakeBy::Itself => (4, Some(w.task)),
                WakeBy::Thread => (5, None),
            };
            out.wake_by.push(code);
            out.wake_from
                .push(from.map_or(-1, |t| i64::try_from(t).unwrap_or(-1)));
            out.wake_row.push(
                from.and_then(|t| rows.shown(t, shown))
                    .map_or(-1, |r| r as i32),
            );
        }
        let mut before = 0;
        for c in &trace.counters {
            out.count_at.push(delta(c.at_us, before));
            before = c.at_us;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{BLOCKING_POLL_US, SELF_WAKE_STREAK, task_trace};

    #[test]
    fn the_columns_count_what_the_trace_holds_and_mark_the_blocking_poll() {
        let trace = task_trace(5, 3, true);
        let tasks = Tasks::of(&trace);
        assert_eq!(tasks.polls, trace.polls.len());
        assert_eq!(tasks.row.len(), trace.polls.len(), "every row is drawn");
        assert_eq!(tasks.arrows, trace.polls.len(), "each poll has its wake");
        assert_eq!(tasks.long_polls, 1);
        assert_eq!(tasks.longest_poll_us, BLOCKING_POLL_US);
        assert_eq!(tasks.self_wakes, SELF_WAKE_STREAK - 1);
        let self_woken = tasks.flags.iter().filter(|&&f| f & SELF_WOKEN != 0);
        assert_eq!(self_woken.count(), SELF_WAKE_STREAK - 1);
        // The starts add back up to the trace's.
        let last: i64 = tasks.at.iter().sum();
        let latest = trace.polls.iter().map(|p| p.start_us).max().unwrap();
        assert_eq!(last, latest as i64);
    }

    #[test]
    fn beyond_the_busiest_rows_polls_are_counted_not_sent() {
        let trace = task_trace(MAX_ROWS as u64 + 50, 1, false);
        let tasks = Tasks::of(&trace);
        assert_eq!(tasks.rows.len(), MAX_ROWS);
        assert_eq!((tasks.hidden_rows, tasks.hidden_tasks), (50, 50));
        assert_eq!(tasks.hidden_polls, 50 * 2);
        assert_eq!(tasks.row.len() + tasks.hidden_polls, trace.polls.len());
    }
}
