//! Tasks packed into rows, so that a run of 20,000 short-lived tasks is
//! drawn on a few hundred rows, not 20,000.
//!
//! A task lives from its first poll to the end of its last. Two tasks
//! whose lives do not overlap can share a row without their bars ever
//! touching: a connection handler that ended leaves its row to the next
//! one spawned. [`pack`] deals the tasks out greedily, in order of birth,
//! each onto the row that fell free first; the rows are then ordered
//! busiest first (the time their polls held the thread), so that when a
//! page draws only the first [`MAX_ROWS`], what it leaves out is what
//! mattered least.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use crate::tasks::TaskTrace;

/// How many rows of tasks a page or a trace draws at most.
pub(crate) const MAX_ROWS: usize = 200;

/// The tasks of a trace, packed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Rows {
    /// Each task's row: 0 is the busiest row.
    pub(crate) of_task: BTreeMap<u64, u32>,
    /// Each row's tasks, in order of birth.
    pub(crate) tasks: Vec<Vec<u64>>,
}

impl Rows {
    /// The row of `task`, if it is among the first `shown` rows.
    pub(crate) fn shown(&self, task: u64, shown: usize) -> Option<u32> {
        self.of_task
            .get(&task)
            .copied()
            .filter(|&row| (row as usize) < shown)
    }

    /// What a row is called: its task, or its first task and how many
    /// more share it.
    pub(crate) fn label(&self, row: usize) -> String {
        match self.tasks[row].as_slice() {
            [] => String::new(),
            [one] => format!("task {one}"),
            [first, rest @ ..] => format!("task {first} +{}", rest.len()),
        }
    }
}

/// Packs the tasks of `trace` into rows (see the module docs).
pub(crate) fn pack(trace: &TaskTrace) -> Rows {
    // task -> (born, died, busy)
    let mut lives: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new();
    for p in &trace.polls {
        let end = p.start_us.saturating_add(p.busy_us);
        let life = lives.entry(p.task).or_insert((p.start_us, end, 0));
        life.0 = life.0.min(p.start_us);
        life.1 = life.1.max(end);
        life.2 += p.busy_us;
    }
    let mut births: Vec<(u64, u64, u64, u64)> = lives
        .into_iter()
        .map(|(task, (born, died, busy))| (born, task, died, busy))
        .collect();
    births.sort_unstable();
    // The rows in use, by the instant each falls free: the earliest first.
    let mut free: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut rows: Vec<(u64, Vec<u64>)> = Vec::new();
    for (born, task, died, busy) in births {
        let row = match free.peek() {
            // Strictly before: a task born as another dies is drawn apart.
            Some(&Reverse((until, row))) if until < born => {
                free.pop();
                row
            }
            _ => {
                rows.push((0, Vec::new()));
                rows.len() - 1
            }
        };
        rows[row].0 += busy;
        rows[row].1.push(task);
        free.push(Reverse((died, row)));
    }
    // Busiest first; among equals, the one whose first task is older.
    rows.sort_by_key(|(busy, tasks)| (Reverse(*busy), tasks.first().copied()));
    let mut packed = Rows::default();
    for (row, (_, tasks)) in rows.into_iter().enumerate() {
        for &task in &tasks {
            packed.of_task.insert(task, row as u32);
        }
        packed.tasks.push(tasks);
    }
    packed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::TaskPoll;

    fn poll(task: u64, start_us: u64, busy_us: u64) -> TaskPoll {
        TaskPoll {
            task,
            start_us,
            busy_us,
            cause: None,
            ready: false,
        }
    }

    #[test]
    fn tasks_that_never_live_at_once_share_a_row_and_the_busiest_row_comes_first() {
        let trace = TaskTrace {
            // 1 lives 0..30, 2 lives 10..20, 3 lives 40..50 (after 1 and 2).
            polls: vec![
                poll(1, 0, 5),
                poll(2, 10, 10),
                poll(1, 25, 5),
                poll(3, 40, 10),
            ],
            ..TaskTrace::default()
        };
        let rows = pack(&trace);
        assert_eq!(rows.tasks.len(), 2, "3 takes the row of 1 or 2: {rows:?}");
        // 2's row fell free first (at 20 µs), so 3 joins it, and that row
        // (20 µs busy) is busier than 1's (10 µs).
        assert_eq!(rows.tasks[0], vec![2, 3], "{rows:?}");
        assert_eq!(rows.tasks[1], vec![1]);
        assert_eq!(rows.label(0), "task 2 +1");
        assert_eq!(rows.shown(1, 1), None, "row 1 is not among the first one");
        assert_eq!(rows.shown(3, 1), Some(0));
    }
}
