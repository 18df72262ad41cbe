//! What the loop and this crate's primitives share about the poll under
//! way: which task it is, whether it did anything, and which of its wakers
//! the primitives keep.
//!
//! The loop sets the task before each poll and reads the progress flag
//! after it (a poll that did nothing is counted in
//! [`Stats::idle_polls`](crate::Stats::idle_polls)). A primitive that keeps
//! a waker (a semaphore's line, a [`JoinHandle`](crate::JoinHandle))
//! keeps it as a [`HeldWaker`], which counts it here for as long as it is
//! kept: those wakers only ever fire when another task runs, and the check
//! for a stuck run (`stuck.rs`) must tell them from wakers held by anyone
//! else.
//!
//! This file knows nothing of the executor: the loop owns a [`PollState`]
//! and hands an `Rc` of it to whoever needs it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::task::Waker;

use crate::task_map::TaskMap;
use crate::waker::TaskId;

/// What one of this crate's primitives makes a task wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitKind {
    /// A [`Semaphore`](crate::Semaphore) permit.
    Permit,
    /// Another task's end, through its [`JoinHandle`](crate::JoinHandle).
    Join,
    /// A [`Sleep`](crate::Sleep)'s deadline: the heap holds a waker of its
    /// own while the timer is set, so this one is only ever the last word
    /// on a task when the timer has fired and the `Sleep` was not polled
    /// again.
    Timer,
}

impl WaitKind {
    /// How the stuck report says it.
    pub(crate) fn what(self) -> &'static str {
        match self {
            WaitKind::Permit => "a semaphore permit",
            WaitKind::Join => "another task to finish",
            WaitKind::Timer => "a timer that fired, in a future no longer polled",
        }
    }
}

/// The poll under way, and the wakers the primitives hold per task.
#[derive(Debug, Default)]
pub(crate) struct PollState {
    /// The task being polled, and the waker it was polled with.
    polling: RefCell<Option<(TaskId, Waker)>>,
    /// Set by anything that makes progress during a poll.
    progress: Cell<bool>,
    /// Wakers kept as [`HeldWaker`]s: how many per task, and the kind of
    /// the latest.
    held: RefCell<TaskMap<(usize, WaitKind)>>,
}

impl PollState {
    /// The loop is about to poll task `id` with `waker`.
    pub(crate) fn start(&self, id: TaskId, waker: &Waker) {
        self.progress.set(false);
        *self.polling.borrow_mut() = Some((id, waker.clone()));
    }

    /// The poll is over: did it make progress?
    pub(crate) fn end(&self) -> bool {
        *self.polling.borrow_mut() = None;
        self.progress.get()
    }

    /// The task being polled, if a poll is under way.
    pub(crate) fn current(&self) -> Option<TaskId> {
        self.polling.borrow().as_ref().map(|&(id, _)| id)
    }

    /// The current poll did something: a byte moved, a timer fired, a
    /// permit or a result came.
    pub(crate) fn progress(&self) {
        self.progress.set(true);
    }

    /// How many wakers of task `id` the primitives hold, and for what.
    pub(crate) fn held(&self, id: TaskId) -> (usize, Option<WaitKind>) {
        self.held
            .borrow()
            .get(&id)
            .map_or((0, None), |&(n, kind)| (n, Some(kind)))
    }

    /// The task being polled, if `waker` is the one it was polled with.
    fn polled_with(&self, waker: &Waker) -> Option<TaskId> {
        self.polling
            .borrow()
            .as_ref()
            .filter(|(_, polled_with)| polled_with.will_wake(waker))
            .map(|&(id, _)| id)
    }

    fn add(&self, task: TaskId, kind: WaitKind) {
        let mut held = self.held.borrow_mut();
        let entry = held.entry(task).or_insert((0, kind));
        // A timer's waker says less of what the task waits on than any
        // other: it does not replace the kind of another wait.
        let kind = if kind == WaitKind::Timer {
            entry.1
        } else {
            kind
        };
        *entry = (entry.0 + 1, kind);
    }

    fn remove(&self, task: TaskId) {
        let mut held = self.held.borrow_mut();
        if let Some(entry) = held.get_mut(&task) {
            entry.0 -= 1;
            if entry.0 == 0 {
                held.remove(&task);
            }
        }
    }
}

/// A waker kept by one of this crate's primitives, counted in the
/// [`PollState`] while it is kept. Only a waker of the task being polled is
/// counted: a foreign waker (a combinator's own) tells nothing about a task.
pub(crate) struct HeldWaker {
    waker: Waker,
    held: Option<(Rc<PollState>, TaskId)>,
}

impl HeldWaker {
    /// Keeps a clone of `waker` for a wait of `kind`.
    pub(crate) fn new(state: &Rc<PollState>, waker: &Waker, kind: WaitKind) -> HeldWaker {
        let task = state.polled_with(waker);
        if let Some(task) = task {
            state.add(task, kind);
        }
        HeldWaker {
            waker: waker.clone(),
            held: task.map(|task| (state.clone(), task)),
        }
    }

    /// Would this wake the same task as `waker`?
    pub(crate) fn will_wake(&self, waker: &Waker) -> bool {
        self.waker.will_wake(waker)
    }

    /// Stops counting it, then wakes it.
    pub(crate) fn wake(mut self) {
        let waker = std::mem::replace(&mut self.waker, Waker::noop().clone());
        drop(self);
        waker.wake();
    }
}

impl Drop for HeldWaker {
    fn drop(&mut self) {
        if let Some((state, task)) = self.held.take() {
            state.remove(task);
        }
    }
}
