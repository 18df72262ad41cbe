//! A task: a spawned future, boxed, with its number and its waker.
//!
//! [`Task::new`] wraps the future in one that hands its output to the
//! [`JoinHandle`](crate::JoinHandle)'s state, and boxes it: the loop keeps
//! futures of every type in one table, so behind a `dyn Future`. A task
//! is cancelled by `cancel.rs`, which drops its future under
//! `catch_unwind`; one dropped any other way, unfinished, still ends its
//! `JoinHandle`, with [`JoinError::Cancelled`].
//!
//! Not here: spawning and polling tasks (`executor.rs`).

use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::Waker;

use crate::join::{Fail, JoinError, JoinState};
use crate::waker::{TaskId, TaskWaker, Wakeups};

/// A spawned future and what the loop needs to poll it.
pub(crate) struct Task {
    /// `None` while it is being polled.
    pub(crate) future: Option<Pin<Box<dyn Future<Output = ()>>>>,
    /// Shared with every clone of `waker`: the loop reads its count.
    pub(crate) arc: Arc<TaskWaker>,
    /// Made once, cloned for each poll.
    pub(crate) waker: Waker,
    /// Its `JoinHandle`'s state, without the output type: for ending it
    /// with an error if it never finishes. `None` once it has finished.
    pub(crate) join: Option<Rc<dyn Fail>>,
    /// It aborted itself while it was being polled: the loop cancels it
    /// when the poll returns `Pending` (`cancel.rs`).
    pub(crate) aborted: bool,
    /// Where `spawn` was called, for the lints to name the task by.
    pub(crate) spawned_at: Option<&'static Location<'static>>,
    /// Polls in a row that woke the task itself (`lints.rs`).
    pub(crate) self_wakes: u32,
}

impl Drop for Task {
    fn drop(&mut self) {
        if let Some(join) = self.join.take() {
            join.fail(JoinError::Cancelled);
        }
    }
}

// ANCHOR: task_new
impl Task {
    /// Task `id`, running `future`, not yet queued; and the state its
    /// `JoinHandle` will read the output from.
    pub(crate) fn new<F>(
        id: TaskId,
        future: F,
        wakeups: Arc<Wakeups>,
    ) -> (Task, Rc<JoinState<F::Output>>)
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let state = Rc::new(JoinState::new());
        let done = state.clone();
        let arc = TaskWaker::new(id, wakeups);
        let task = Task {
            future: Some(Box::pin(async move {
                let output = future.await;
                done.finish(Ok(output));
            })),
            waker: Waker::from(arc.clone()),
            arc,
            join: Some(state.clone()),
            aborted: false,
            spawned_at: None,
            self_wakes: 0,
        };
        (task, state)
    }

    /// The task, spawned at `at`.
    pub(crate) fn spawned_at(mut self, at: &'static Location<'static>) -> Task {
        self.spawned_at = Some(at);
        self
    }
}
// ANCHOR_END: task_new
