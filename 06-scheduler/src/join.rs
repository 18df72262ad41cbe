//! Spawning a fiber, waiting for it to finish, and learning how it ended.
//!
//! [`Scheduler::spawn`] returns a [`JoinHandle`]: another fiber can
//! [`join`](JoinHandle::join) it to wait for the fiber's value, or for the
//! panic that ended it ([`FiberError`]). Dropping the handle detaches the
//! fiber: it runs on, and a panic is still listed in the run's
//! [`Summary`](crate::Summary).
//!
//! The core knows nothing of handles: it starts a fiber with a closure to
//! call as the fiber's last act, and this module's closure fills the
//! handle's slot and wakes the joiners through a [`Notification`].
//!
//! Not here: catching the panic (the core's `start` does, at the fiber's
//! edge).

use std::cell::RefCell;
use std::fmt;
use std::io;
use std::rc::Rc;

use crate::notification::Notification;
use crate::scheduler::{FiberId, FiberPanic, Scheduler};

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

impl From<FiberPanic> for FiberError {
    fn from(panic: FiberPanic) -> FiberError {
        FiberError::Panicked {
            fiber: panic.fiber,
            message: panic.message,
        }
    }
}

/// Owned permission to wait for a fiber's result.
pub struct JoinHandle<T> {
    id: FiberId,
    shared: Rc<JoinShared<T>>,
}

/// The result slot a fiber and its handle share.
struct JoinShared<T> {
    result: RefCell<Option<Result<T, FiberError>>>,
    finished: Notification,
}

impl<T> JoinShared<T> {
    /// Called once, by the fiber, as its last act.
    fn finish(&self, result: Result<T, FiberError>) {
        *self.result.borrow_mut() = Some(result);
        self.finished.notify_all();
    }
}

impl Scheduler {
    /// Starts `f` as a new fiber (Ruby's `Fiber.schedule`). It does not run
    /// yet: it joins the back of the ready queue, and the caller goes on.
    ///
    /// A panic in `f` is caught at the fiber's edge: the fiber ends, its
    /// [`JoinHandle`] returns [`FiberError::Panicked`], the panic is listed
    /// in [`Summary::panics`](crate::Summary::panics), and every other
    /// fiber goes on.
    ///
    /// # Errors
    ///
    /// No stack could be made for the fiber (an `mmap` failed: out of
    /// memory, or out of memory mappings, `vm.max_map_count`).
    ///
    /// # Examples
    ///
    /// A fiber that spawns another and joins it:
    ///
    /// ```
    /// use scheduler::Scheduler;
    ///
    /// let sched = Scheduler::new()?;
    /// let sched2 = sched.clone();
    /// let parent = sched.spawn(move || {
    ///     let child = sched2.spawn(|| 6 * 7).expect("a stack for the child");
    ///     // Suspends the parent (not the thread) until the child is done.
    ///     child.join()
    /// })?;
    /// sched.run()?;
    /// assert_eq!(parent.try_join(), Some(Ok(Ok(42))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    // ANCHOR: spawn
    pub fn spawn<T: 'static>(&self, f: impl FnOnce() -> T + 'static) -> io::Result<JoinHandle<T>> {
        let shared = Rc::new(JoinShared {
            result: RefCell::new(None),
            finished: Notification::named(self, "a fiber to finish (join)"),
        });
        let finish = {
            let shared = shared.clone();
            move |result: Result<T, FiberPanic>| shared.finish(result.map_err(FiberError::from))
        };
        let id = self.start(f, finish)?;
        Ok(JoinHandle { id, shared })
    }
    // ANCHOR_END: spawn
}

impl<T> JoinHandle<T> {
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
