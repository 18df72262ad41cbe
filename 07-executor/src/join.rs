//! Waiting for a task to finish, and learning how it ended.
//!
//! [`Handle::spawn`](crate::Handle::spawn) returns a [`JoinHandle`], itself
//! a future: awaiting it gives the task's output, or a [`JoinError`] when
//! the task panicked, was dropped unfinished (cancelled, or its executor
//! went away), or was spawned after its executor went away.
//! Dropping the handle detaches the task, which runs on; its panic, if
//! any, is still listed by [`Executor::panics`](crate::Executor::panics).
//!
//! Not here: catching the panic (the loop does, around each poll).

use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use crate::poll_state::{HeldWaker, PollState, WaitKind};
use crate::waker::TaskId;

/// A task that panicked: the panic was caught at the edge of its poll, or
/// of its destructor as it was cancelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskPanic {
    /// Which task.
    pub task: TaskId,
    /// The panic's message.
    pub message: String,
}

impl fmt::Display for TaskPanic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} panicked: {}", self.task, self.message)
    }
}

/// How a task failed to produce its output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    /// It panicked.
    #[error("{0}")]
    Panicked(TaskPanic),
    /// It was dropped before it finished: its executor was dropped, or
    /// the [`TaskSet`](crate::TaskSet) it belonged to.
    #[error("the task was dropped before it finished (cancelled)")]
    Cancelled,
    /// It was spawned on a [`Handle`](crate::Handle) whose executor had
    /// been dropped: it never ran.
    #[error("the task was spawned after its executor was dropped, and never ran")]
    NoExecutor,
}

/// The result slot a task and its handle share.
pub(crate) struct JoinState<T> {
    result: RefCell<Option<Result<T, JoinError>>>,
    /// `finish` has been called (the result may have been taken since).
    finished: Cell<bool>,
    /// The task awaiting the handle, if it is waiting.
    waiter: RefCell<Option<HeldWaker>>,
}

impl<T> JoinState<T> {
    pub(crate) fn new() -> JoinState<T> {
        JoinState {
            result: RefCell::new(None),
            finished: Cell::new(false),
            waiter: RefCell::new(None),
        }
    }

    /// Called once: by the task as its last act, or for it when it panics
    /// or is dropped unfinished (the loop ends a task one way only; a second
    /// call is a bug, caught in debug builds).
    pub(crate) fn finish(&self, result: Result<T, JoinError>) {
        let again = self.finished.replace(true);
        debug_assert!(!again, "a task's join was finished twice");
        *self.result.borrow_mut() = Some(result);
        let waiter = self.waiter.borrow_mut().take();
        if let Some(waiter) = waiter {
            waiter.wake();
        }
    }
}

/// What the loop can do to a task's `JoinHandle` without knowing the
/// type of its output: end it with an error.
pub(crate) trait Fail {
    fn fail(&self, error: JoinError);
}

impl<T> Fail for JoinState<T> {
    fn fail(&self, error: JoinError) {
        // A task whose last act, its own `finish`, panicked (in a waker it
        // woke) has its output already: the panic is listed, not a result.
        if !self.finished.get() {
            self.finish(Err(error));
        }
    }
}

/// A future of a task's output. Dropping it detaches the task. It gives
/// the output once: polled again after it did, it panics.
///
/// # Examples
///
/// A task that panics ends alone; its handle says how:
///
/// ```
/// use executor::{Executor, JoinError};
///
/// let executor = Executor::new()?;
/// let fine = executor.spawn(async { "fine" });
/// let broken = executor.spawn(async { panic!("broken") });
/// let (fine, broken) = executor.block_on(async { (fine.await, broken.await) })?;
/// assert_eq!(fine, Ok("fine"));
/// assert!(matches!(broken, Err(JoinError::Panicked(p)) if p.message == "broken"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct JoinHandle<T> {
    id: TaskId,
    state: Rc<JoinState<T>>,
    /// Where the awaiting task's waker is counted while it waits.
    poll_state: Rc<PollState>,
    /// The output has been returned: polling again is a bug.
    taken: bool,
}

impl<T> JoinHandle<T> {
    pub(crate) fn new(
        id: TaskId,
        state: Rc<JoinState<T>>,
        poll_state: Rc<PollState>,
    ) -> JoinHandle<T> {
        JoinHandle {
            id,
            state,
            poll_state,
            taken: false,
        }
    }

    /// The task's number.
    pub fn id(&self) -> TaskId {
        self.id
    }

    /// Has the task ended (finished, panicked or been dropped)?
    pub fn is_finished(&self) -> bool {
        self.taken || self.state.result.borrow().is_some()
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // No field is pinned (an `Rc`, a handle, a flag): `JoinHandle` is
        // `Unpin`, and `get_mut` is fine.
        let this = self.get_mut();
        assert!(!this.taken, "a JoinHandle polled after it returned");
        if let Some(result) = this.state.result.borrow_mut().take() {
            this.taken = true;
            this.poll_state.progress();
            return Poll::Ready(result);
        }
        let mut waiter = this.state.waiter.borrow_mut();
        if !waiter.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            *waiter = Some(HeldWaker::new(&this.poll_state, cx.waker(), WaitKind::Join));
        }
        Poll::Pending
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        // Nobody waits any more: the kept waker must not count as a wait.
        self.state.waiter.borrow_mut().take();
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("id", &self.id)
            .field("finished", &self.is_finished())
            .finish()
    }
}
