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
//!
//! # A spin is one bar
//!
//! A task that wakes itself before every `Pending` is polled again at
//! once, millions of times a second: `cargo run --release -p executor
//! --example wrong_self_wake -- --items 40 --conns 10 --latency 2ms
//! --timeline x.html` made about 300,000 polls in 91 ms, the log kept
//! 200,000, and a bar for each, too thin to see, with an arrow from its
//! wake made a page of 4.6 MB. Merged as below, the same run's page draws
//! about 150 bars (35 of them spins) and weighs 89 KB.
//!
//! So a run of two or more consecutive polls of one task, each caused by
//! a self-wake ([`WakeBy::Itself`]) of the poll before it, is sent as one
//! bar ([`SPIN`]): from the start of its first poll to the end of its
//! last, with how many polls it holds and how long they held the thread.
//! Only its first wake (the one into it) is sent and gets an arrow; the
//! self-wakes inside it are counted, not sent. One self-woken poll alone
//! is a yield, not a spin; and a long poll is never part of a spin: it
//! keeps its own bar.

use std::collections::HashMap;

use serde::Serialize;

use crate::tasks::{TaskTrace, WakeBy};
use crate::timeline::legend::LONG_POLL_US;
use crate::timeline::task_rows::{MAX_ROWS, pack};

/// Flags of a poll, one bit each.
const READY: u8 = 1;
const LONG: u8 = 2;
const SELF_WOKEN: u8 = 4;
const CAUSED: u8 = 8;
/// The bar is a spin: many polls merged (see the module's doc).
const SPIN: u8 = 16;

/// The tasks of one run, in columns. Times are µs since the run's start.
#[derive(Serialize)]
pub(super) struct Tasks {
    /// The rows drawn, busiest first: what each is called.
    rows: Vec<String>,
    /// Rows, tasks and polls not drawn (beyond the busiest rows).
    hidden_rows: usize,
    hidden_tasks: usize,
    hidden_polls: usize,
    /// Totals of the whole trace: what `#tasks` says in its attributes
    /// (`data-polls`, `data-wakes`, `data-self-wakes`... count every poll
    /// and wake kept, merged into a spin or not).
    tasks: usize,
    polls: usize,
    wakes: usize,
    /// The arrows in these columns (`data-arrows`): a drawn bar's cause,
    /// one per spin.
    arrows: usize,
    /// Spins merged into one bar each (`data-spins`), drawn or not.
    spins: usize,
    long_polls: usize,
    self_wakes: usize,
    longest_poll_us: u64,
    long_us: u64,
    dropped: u64,
    /// Each drawn poll, in order of start: its row, its start as the
    /// difference from the previous one's, how long it held the thread,
    /// its task, its flags (ready 1, long 2, caused by a self-wake 4, has
    /// a cause 8, a spin 16) and, when it has one, its cause's index into
    /// the wakes sent as the difference from the previous cause (the
    /// first: from 0). A spin's busy is from its first start to its last
    /// end.
    row: Vec<u32>,
    at: Vec<i64>,
    busy: Vec<u64>,
    task: Vec<u64>,
    flags: Vec<u8>,
    cause: Vec<i64>,
    /// Each drawn spin, in the order of its bar: how many polls it merges
    /// and how long they held the thread, summed.
    spin_polls: Vec<u32>,
    spin_busy: Vec<u64>,
    /// Every wake but those inside a spin: its instant (a difference), who woke it (0 spawn, 1 a
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

/// A run of self-woken polls of one task, sent as one bar.
struct Spin {
    /// Its first poll, by index into the trace.
    first: usize,
    polls: u32,
    busy_us: u64,
    end_us: u64,
    ready: bool,
}

/// The spins of `trace`, whose polls by start are `order`, and for each
/// poll the spin it is part of.
fn find_spins(trace: &TaskTrace, order: &[usize]) -> (Vec<Spin>, Vec<Option<usize>>) {
    let (polls, wakes) = (&trace.polls, &trace.wakes);
    // Per task: its last poll, and the first poll of the self-woken run
    // that poll ends, if it is one.
    let mut last: HashMap<u64, (usize, Option<usize>)> = HashMap::new();
    let mut head = vec![None; polls.len()];
    for &i in order {
        let p = &polls[i];
        let before = last.get(&p.task).copied();
        let woken_by_the_last = |(prev, _): (usize, Option<usize>)| {
            let q = &polls[prev];
            let wake = p.cause.and_then(|c| wakes.get(c as usize));
            !q.ready && wake.is_some_and(|w| w.by == WakeBy::Itself && w.at_us >= q.start_us)
        };
        let chained = p.busy_us < LONG_POLL_US && before.is_some_and(woken_by_the_last);
        if chained {
            head[i] = Some(before.and_then(|(_, run)| run).unwrap_or(i));
        }
        last.insert(p.task, (i, head[i]));
    }
    let mut spins = Vec::new();
    let mut index: HashMap<usize, usize> = HashMap::new();
    let mut spin_of = vec![None; polls.len()];
    let mut runs: HashMap<usize, u32> = HashMap::new();
    for first in head.iter().flatten() {
        *runs.entry(*first).or_default() += 1;
    }
    for &i in order {
        let Some(first) = head[i] else { continue };
        if runs[&first] < 2 {
            continue; // one self-woken poll is a yield, not a spin
        }
        let s = *index.entry(first).or_insert_with(|| {
            spins.push(Spin {
                first,
                polls: 0,
                busy_us: 0,
                end_us: 0,
                ready: false,
            });
            spins.len() - 1
        });
        let (p, spin) = (&polls[i], &mut spins[s]);
        spin.polls += 1;
        spin.busy_us += p.busy_us;
        spin.end_us = spin.end_us.max(p.start_us + p.busy_us);
        spin.ready |= p.ready;
        spin_of[i] = Some(s);
    }
    (spins, spin_of)
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
        let mut order: Vec<usize> = (0..trace.polls.len()).collect();
        order.sort_by_key(|&i| (trace.polls[i].start_us, i));
        let (spins, spin_of) = find_spins(trace, &order);
        // The wakes sent: all but those inside a spin, renumbered.
        let mut sent: Vec<Option<u32>> = vec![Some(0); wakes];
        for (i, p) in trace.polls.iter().enumerate() {
            let inside = spin_of[i].is_some_and(|s| spins[s].first != i);
            if let (true, Some(c)) = (inside, p.cause.filter(|&c| (c as usize) < wakes)) {
                sent[c as usize] = None;
            }
        }
        let mut next = 0;
        for s in sent.iter_mut().flatten() {
            *s = next;
            next += 1;
        }
        let mut out = Tasks {
            rows: (0..shown).map(|r| rows.label(r)).collect(),
            hidden_rows: rows.tasks.len() - shown,
            hidden_tasks: rows.tasks[shown..].iter().map(Vec::len).sum(),
            hidden_polls: 0,
            tasks: rows.of_task.len(),
            polls: trace.polls.len(),
            wakes,
            arrows: 0,
            spins: spins.len(),
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
            spin_polls: Vec::new(),
            spin_busy: Vec::new(),
            wake_at: Vec::with_capacity(next as usize),
            wake_by: Vec::with_capacity(next as usize),
            wake_from: Vec::with_capacity(next as usize),
            wake_row: Vec::with_capacity(next as usize),
            count_at: Vec::new(),
            alive: trace.counters.iter().map(|c| c.alive).collect(),
            ready: trace.counters.iter().map(|c| c.ready).collect(),
        };
        let (mut start_before, mut cause_before) = (0, 0);
        for i in order {
            let p = &trace.polls[i];
            let Some(row) = rows.shown(p.task, shown) else {
                out.hidden_polls += 1;
                continue;
            };
            let spin = spin_of[i].map(|s| &spins[s]);
            if spin.is_some_and(|s| s.first != i) {
                continue; // inside the spin's bar, sent with its first poll
            }
            let cause = p.cause.filter(|&c| (c as usize) < wakes);
            let flag = |on: bool, bit: u8| if on { bit } else { 0 };
            out.row.push(row);
            out.at.push(delta(p.start_us, start_before));
            out.busy
                .push(spin.map_or(p.busy_us, |s| s.end_us - p.start_us));
            out.task.push(p.task);
            out.flags.push(
                flag(spin.map_or(p.ready, |s| s.ready), READY)
                    | flag(p.busy_us >= LONG_POLL_US, LONG)
                    | flag(by_itself(cause), SELF_WOKEN)
                    | flag(cause.is_some(), CAUSED)
                    | flag(spin.is_some(), SPIN),
            );
            if let Some(s) = spin {
                out.spin_polls.push(s.polls);
                out.spin_busy.push(s.busy_us);
            }
            if let Some(c) = cause.and_then(|c| sent[c as usize]) {
                out.cause.push(i64::from(c) - cause_before);
                cause_before = i64::from(c);
                out.arrows += 1;
            }
            start_before = p.start_us;
        }
        let mut before = 0;
        for (w, _) in trace.wakes.iter().zip(&sent).filter(|(_, s)| s.is_some()) {
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
    use crate::sample::{BLOCKING_POLL_US, SELF_WAKE_STREAK, spin_trace, task_trace};

    #[test]
    fn the_columns_count_what_the_trace_holds_and_mark_the_blocking_poll() {
        let trace = task_trace(5, 3, true);
        let tasks = Tasks::of(&trace);
        assert_eq!(tasks.polls, trace.polls.len());
        // The streak's self-woken polls are one bar, with one wake sent.
        let merged = SELF_WAKE_STREAK - 2;
        assert_eq!(tasks.spins, 1);
        assert_eq!(tasks.spin_polls, [SELF_WAKE_STREAK as u32 - 1]);
        assert_eq!(
            tasks.row.len(),
            trace.polls.len() - merged,
            "every row is drawn"
        );
        assert_eq!(tasks.arrows, tasks.row.len(), "each bar has its wake");
        assert_eq!(tasks.cause.len(), tasks.arrows);
        assert_eq!(tasks.wakes, trace.wakes.len(), "the totals count them all");
        assert_eq!(tasks.wake_at.len(), trace.wakes.len() - merged);
        assert_eq!(tasks.long_polls, 1);
        assert_eq!(tasks.longest_poll_us, BLOCKING_POLL_US);
        assert_eq!(tasks.self_wakes, SELF_WAKE_STREAK - 1);
        let self_woken = tasks.flags.iter().filter(|&&f| f & SELF_WOKEN != 0);
        assert_eq!(self_woken.count(), 1);
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
        // Task 1's streak, the busiest row, is one bar.
        let merged = SELF_WAKE_STREAK - 2;
        assert_eq!(tasks.spins, 1);
        assert_eq!(
            tasks.row.len() + merged + tasks.hidden_polls,
            trace.polls.len()
        );
    }

    /// The bars of `tasks` as (flags, busy), and the spins' poll counts.
    fn bars(tasks: &Tasks) -> Vec<(u8, u64)> {
        tasks
            .flags
            .iter()
            .copied()
            .zip(tasks.busy.iter().copied())
            .collect()
    }

    #[test]
    fn a_streak_of_self_wakes_is_one_bar_that_counts_its_polls() {
        let trace = spin_trace(&[1_000]);
        let tasks = Tasks::of(&trace);
        assert_eq!(tasks.polls, 1 + 1 + 1_000);
        assert_eq!((tasks.spins, tasks.self_wakes), (1, 1_000));
        assert_eq!(tasks.spin_polls, [1_000]);
        assert_eq!(tasks.spin_busy, [1_000], "1 µs each");
        // The spawn's poll, the socket's, and the spin: first start to last end.
        let all = bars(&tasks);
        assert_eq!(all.len(), 3, "{all:?}");
        let (flags, busy) = all[2];
        assert_eq!(flags, SPIN | SELF_WOKEN | CAUSED | READY);
        assert_eq!(busy, 2 * 999 + 1, "a poll every 2 µs");
        // One arrow into the spin, from its first wake: the spawn's, the
        // socket's and the first self-wake are all the wakes sent.
        assert_eq!(tasks.arrows, 3);
        assert_eq!(tasks.wake_by, [0, 1, 4]);
        assert_eq!(tasks.wakes, 2 + 1_000);
    }

    #[test]
    fn a_socket_wake_between_two_streaks_makes_two_spins() {
        let tasks = Tasks::of(&spin_trace(&[5, 7]));
        assert_eq!(tasks.spins, 2);
        assert_eq!(tasks.spin_polls, [5, 7]);
        let spins = bars(&tasks).iter().filter(|(f, _)| f & SPIN != 0).count();
        assert_eq!(spins, 2);
        // spawn, socket, spin, socket, spin.
        assert_eq!(tasks.row.len(), 5);
        assert_eq!(tasks.wake_by, [0, 1, 4, 1, 4]);
        // The causes, as differences, point at the wakes sent in order.
        assert_eq!(tasks.cause, [0, 1, 1, 1, 1]);
    }

    #[test]
    fn one_self_wake_is_a_yield_not_a_spin() {
        let tasks = Tasks::of(&spin_trace(&[1, 1]));
        assert_eq!(tasks.spins, 0);
        assert_eq!(tasks.row.len(), tasks.polls);
        assert_eq!(tasks.wake_at.len(), tasks.wakes);
    }

    #[test]
    fn two_tasks_spinning_by_turns_make_a_spin_each() {
        use crate::tasks::{TaskPoll, TaskWake};
        // Tasks 1 and 2 polled in turn, each poll waking its own task: the
        // loop's queue when several tasks spin at once. Their first polls
        // are the spawns'.
        let mut trace = TaskTrace::default();
        for n in 0..10u64 {
            for task in [1, 2] {
                let at = n * 4 + task * 2;
                let by = if n == 0 {
                    WakeBy::Spawn
                } else {
                    WakeBy::Itself
                };
                let woke = |t| TaskWake { at_us: t, task, by };
                trace.wakes.push(woke(at.saturating_sub(3)));
                let cause = Some(trace.wakes.len() as u32 - 1);
                let (start_us, busy_us, ready) = (at, 1, n == 9);
                trace.polls.push(TaskPoll {
                    task,
                    start_us,
                    busy_us,
                    cause,
                    ready,
                });
            }
        }
        let tasks = Tasks::of(&trace);
        assert_eq!((tasks.spins, tasks.spin_polls.clone()), (2, vec![9, 9]));
        assert_eq!(tasks.row.len(), 4, "a spawn's poll and a spin each");
        assert_eq!(tasks.arrows, 4);
        assert_eq!(tasks.wake_by, [0, 0, 4, 4]);
    }
}
