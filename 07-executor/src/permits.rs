//! Who holds the permits of the semaphores (`semaphore.rs`): a
//! semaphore's state, and the registry of every semaphore of an executor
//! that the futurelock check reads when a run is stuck.
//!
//! Each permit remembers the task being polled when its `acquire`
//! completed, and each waiter the task that queued it, so that a stuck run
//! can say when a task waits for a permit it holds itself (a
//! *futurelock*: `lints.rs`). A permit can move to another task: the
//! stage's `block_on` future takes each permit and hands it, in the same
//! poll, to the task it spawns. So a permit taken in the poll that spawns
//! a task is counted as that task's (`Registry::spawned`). A permit can
//! still move in ways no executor sees (sent through a channel, say), so
//! the check runs only on a stuck run, where it names a suspect, not on
//! every wait. A waiter that was handed a permit and was never polled to
//! take it holds it too: that is the futurelock of a `select` that keeps
//! an `acquire` it no longer polls.
//!
//! The state lives here, not in `semaphore.rs`, because the executor's
//! shared part keeps the registry and the semaphore keeps a handle to the
//! executor: each imports this file, and neither the other.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use crate::poll_state::HeldWaker;
use crate::schedule::TaskId;

/// One semaphore's state.
pub(crate) struct State {
    /// Free permits. Never above zero while anyone waits.
    pub(crate) permits: usize,
    /// The waiting `Acquire`s, oldest first.
    pub(crate) queue: VecDeque<Waiter>,
    pub(crate) next_waiter: u64,
    /// Who has each permit out (see the module docs).
    pub(crate) holders: Vec<Holder>,
    /// The number the next permit taken gets.
    pub(crate) next_permit: u64,
}

/// A permit out, and the task counted as having it.
pub(crate) struct Holder {
    pub(crate) permit: u64,
    pub(crate) task: TaskId,
    /// The poll it was taken in (the executor's count of polls then).
    pub(crate) poll: u64,
}

pub(crate) struct Waiter {
    pub(crate) id: u64,
    /// A permit has been handed to it; it takes it when polled.
    pub(crate) granted: bool,
    pub(crate) waker: Option<HeldWaker>,
    /// The task that queued it.
    pub(crate) task: Option<TaskId>,
}

/// The semaphores of one executor, for the futurelock check.
#[derive(Default)]
pub(crate) struct Registry(RefCell<Vec<Weak<RefCell<State>>>>);

/// One semaphore's line: the tasks waiting for a permit, and the tasks
/// that took the permits out.
struct Line {
    waiters: Vec<TaskId>,
    holders: Vec<TaskId>,
}

impl Registry {
    /// Task `parent`, in its poll number `poll`, spawned `child`: the
    /// permits it took in that same poll go with the child, as in
    /// `let permit = limit.acquire().await; spawn(async move { ..; drop(permit) })`.
    pub(crate) fn spawned(&self, parent: TaskId, child: TaskId, poll: u64) {
        for state in self.0.borrow().iter().filter_map(Weak::upgrade) {
            let mut state = state.borrow_mut();
            for holder in &mut state.holders {
                if holder.task == parent && holder.poll == poll {
                    holder.task = child;
                }
            }
        }
    }

    pub(crate) fn add(&self, state: &Rc<RefCell<State>>) {
        let mut all = self.0.borrow_mut();
        all.retain(|weak| weak.strong_count() > 0);
        all.push(Rc::downgrade(state));
    }

    /// Pairs of tasks (waiter, holder) where the waiter waits for a
    /// permit that the holder took, and the holder is the waiter itself or
    /// waits in turn for a permit the waiter took: on a stuck run, the
    /// futurelocks (`lints.rs`).
    pub(crate) fn futurelocks(&self) -> Vec<(TaskId, TaskId)> {
        let lines = self.lines();
        let waits_for = |waiter: TaskId, holder: TaskId| {
            lines
                .iter()
                .any(|line| line.waiters.contains(&waiter) && line.holders.contains(&holder))
        };
        let mut locks = Vec::new();
        for line in &lines {
            for &waiter in &line.waiters {
                for &holder in &line.holders {
                    if (holder == waiter || waits_for(holder, waiter))
                        && !locks.contains(&(waiter, holder))
                    {
                        locks.push((waiter, holder));
                    }
                }
            }
        }
        locks
    }

    /// Each live semaphore with tasks waiting, as a [`Line`].
    fn lines(&self) -> Vec<Line> {
        self.0
            .borrow()
            .iter()
            .filter_map(Weak::upgrade)
            .filter_map(|state| {
                let state = state.borrow();
                let waiters: Vec<TaskId> = state
                    .queue
                    .iter()
                    .filter(|w| !w.granted)
                    .filter_map(|w| w.task)
                    .collect();
                // A waiter handed a permit has it, taken or not.
                let handed = state.queue.iter().filter(|w| w.granted);
                let holders = (state.holders.iter().map(|h| h.task))
                    .chain(handed.filter_map(|w| w.task))
                    .collect();
                (!waiters.is_empty()).then_some(Line { waiters, holders })
            })
            .collect()
    }
}
