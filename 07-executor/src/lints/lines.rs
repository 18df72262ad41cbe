//! The lints as a report prints them: one line each, except that one
//! lint on many tasks spawned at one place is one line that counts them.
//!
//! A stage spawns every item's task at one line of its code, so a bug in
//! the item's code (a future that keeps no waker, a spin, a borrow held
//! across an `.await`) is met by every task, and twenty lines that differ
//! only in the task's number hide the one thing to read: what went wrong,
//! and where those tasks come from.

use std::collections::HashMap;
use std::panic::Location;

use super::{Lint, Spawned};

/// The lints that can be met by many tasks, and so are counted by the
/// place their tasks were spawned.
fn group_of(lint: &Lint) -> Option<(u8, Spawned)> {
    match lint {
        Lint::NoWaker { task } => Some((0, *task)),
        Lint::SelfWakes { task, .. } => Some((1, *task)),
        Lint::BorrowAcrossAwait { task, .. } => Some((2, *task)),
        _ => None,
    }
}

/// Where a task was spawned, for comparing two (a `Location` compared by
/// file and line, not by address).
type Place = Option<(&'static str, u32)>;

fn place(task: &Spawned) -> Place {
    task.at
        .map(|at: &'static Location<'static>| (at.file(), at.line()))
}

/// A kind of lint that many tasks can meet (0: no waker, 1: self-wakes,
/// 2: a borrow across an `.await`), and where its task was spawned: the
/// executor counts the tasks met by key.
pub(crate) type Key = (u8, Place);

/// The key of a lint of `kind` met by `task`.
pub(crate) fn key(kind: u8, task: &Spawned) -> Key {
    (kind, place(task))
}

/// The report's lines for `lints`, in the order they came; `met` counts
/// the tasks met by each [`Key`], kept among `lints` or not.
pub(crate) fn lines(lints: &[Lint], met: &HashMap<Key, usize>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut done = vec![false; lints.len()];
    for (i, lint) in lints.iter().enumerate() {
        if done[i] {
            continue;
        }
        let Some((kind, task)) = group_of(lint) else {
            lines.push(lint.to_string());
            continue;
        };
        let same: Vec<usize> = (i..lints.len())
            .filter(|&j| {
                group_of(&lints[j]).is_some_and(|(k, t)| k == kind && place(&t) == place(&task))
            })
            .collect();
        for &j in &same {
            done[j] = true;
        }
        let n = met.get(&key(kind, &task)).copied().unwrap_or(0);
        let n = n.max(same.len());
        if n == 1 || place(&task).is_none() {
            lines.extend(same.iter().map(|&j| lints[j].to_string()));
            continue;
        }
        let group: Vec<&Lint> = same.iter().map(|&j| &lints[j]).collect();
        lines.push(grouped(&group, n));
    }
    lines
}

/// One line for lints of one kind on tasks spawned at one place.
fn grouped(group: &[&Lint], n: usize) -> String {
    let tasks: Vec<Spawned> = group
        .iter()
        .filter_map(|l| group_of(l))
        .map(|g| g.1)
        .collect();
    let at = tasks[0]
        .at
        .map_or(String::new(), |at| format!("{}:{}", at.file(), at.line()));
    let mut numbers: Vec<String> = tasks.iter().take(5).map(|t| t.task.0.to_string()).collect();
    if n > numbers.len() {
        numbers.push("…".to_owned());
    }
    let numbers = numbers.join(", ");
    match group[0] {
        Lint::NoWaker { .. } => format!(
            "{n} tasks spawned at {at} (tasks {numbers}) returned Pending and kept no waker, so \
             nothing can ever wake them: a future must hand cx.waker() to what it waits for \
             before it returns Pending"
        ),
        Lint::SelfWakes { .. } => {
            let most = group
                .iter()
                .filter_map(|l| match l {
                    Lint::SelfWakes { task, streak } => Some((*streak, task.task.0)),
                    _ => None,
                })
                .max();
            let (most, task) = most.unwrap_or_default();
            format!(
                "{n} tasks spawned at {at} (tasks {numbers}) woke themselves, up to {most} times \
                 in a row (task {task}), and returned Pending each time with nothing else waking them: \
                 they spin and the loop never sleeps (a busy-wait written as a future)"
            )
        }
        Lint::BorrowAcrossAwait { message, .. } => format!(
            "{n} tasks spawned at {at} (tasks {numbers}) panicked with {message:?}: a RefCell \
             borrow was held across an .await and another poll borrowed it meanwhile (end the \
             borrow before awaiting)"
        ),
        other => other.to_string(),
    }
}
