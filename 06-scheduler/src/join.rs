//! Waiting for a fiber to finish, and learning how it ended.
//!
//! [`Scheduler::spawn`](crate::Scheduler::spawn) returns a [`JoinHandle`]:
//! another fiber can [`join`](JoinHandle::join) it to wait for the fiber's
//! value, or for the panic that ended it ([`FiberError`]). Dropping the
//! handle detaches the fiber: it runs on, and a panic is still listed in
//! the run's [`Summary`](crate::Summary).
//!
//! Not here: catching the panic (the fiber's body does, in `spawn`).

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use crate::notification::Notification;
use crate::scheduler::{FiberId, Scheduler};

/// How a fiber failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FiberError {
    /// The fiber panicked; the panic was caught at its edge.
    #[error("{fiber} panicked: {message}")]
    Panicked {
        /// Which fiber.
        fiber: FiberId,
        /// The panic's message.
        message: String,
    },
}

/// Owned permission to wait for a fiber's result.
pub struct JoinHandle<T> {
    id: FiberId,
    shared: Rc<JoinShared<T>>,
}

/// The result slot a fiber and its handle share.
pub(crate) struct JoinShared<T> {
    result: RefCell<Option<Result<T, FiberError>>>,
    finished: Notification,
}

impl<T> JoinShared<T> {
    pub(crate) fn new(sched: &Scheduler) -> JoinShared<T> {
        JoinShared {
            result: RefCell::new(None),
            finished: Notification::named(sched, "a fiber to finish (join)"),
        }
    }

    /// Called once, by the fiber, as its last act.
    pub(crate) fn finish(&self, result: Result<T, FiberError>) {
        *self.result.borrow_mut() = Some(result);
        self.finished.notify_all();
    }
}

impl<T> JoinHandle<T> {
    pub(crate) fn new(id: FiberId, shared: Rc<JoinShared<T>>) -> JoinHandle<T> {
        JoinHandle { id, shared }
    }

    /// The fiber's id.
    pub fn id(&self) -> FiberId {
        self.id
    }

    /// Has the fiber finished?
    pub fn is_finished(&self) -> bool {
        self.shared.result.borrow().is_some()
    }

    /// Suspends this fiber until that one finishes, and returns its value
    /// or how it failed.
    ///
    /// # Panics
    ///
    /// Outside a fiber, unless the fiber has already finished.
    pub fn join(self) -> Result<T, FiberError> {
        loop {
            if let Some(result) = self.shared.result.borrow_mut().take() {
                return result;
            }
            self.shared.finished.wait();
        }
    }

    /// The result, if the fiber has finished (for code outside fibers, after
    /// [`Scheduler::run`](crate::Scheduler::run)).
    pub fn try_join(self) -> Option<Result<T, FiberError>> {
        self.shared.result.borrow_mut().take()
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
