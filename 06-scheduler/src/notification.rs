//! [`Notification`]: a fiber waits until another tells it something
//! happened (a condition variable for fibers).
//!
//! The source article's `Notification` remembers the fiber that *created* it and
//! wakes that one, with a flag so that a `notify` with nobody waiting is
//! dropped. Used from any other fiber, it resumes the wrong one; two
//! waiters and the first is forgotten. Here every waiter queues its
//! [`WakeTicket`] and `notify_one` wakes the longest-waiting fiber.
//!
//! # Check, then wait, in a loop
//!
//! A notification carries no state: a `notify` when nobody waits is lost,
//! as with a condition variable. So the waiter checks the condition it
//! cares about first, and again after waking, because between the notify
//! and the moment the woken fiber runs, another fiber may have run and
//! changed it:
//!
//! ```text
//! while queue.is_empty() { not_empty.wait(); }
//! ```
//!
//! (The source article's `TaskLimiter` checks with `if`; it gets away with it because
//! only one fiber ever spawns through it.)
//!
//! Not here: handing something *to* the woken fiber (a semaphore's permit;
//! see `semaphore.rs`).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;

use crate::scheduler::{Scheduler, WakeTicket};

/// A queue of waiting fibers, woken in the order they came.
pub struct Notification {
    sched: Scheduler,
    waiters: RefCell<VecDeque<WakeTicket>>,
    /// What waiters wait on, for deadlock reports.
    what: &'static str,
}

impl Notification {
    /// A notification on `sched`.
    pub fn new(sched: &Scheduler) -> Notification {
        Notification::named(sched, "a notification")
    }

    /// A notification that deadlock reports call `what`.
    pub fn named(sched: &Scheduler, what: &'static str) -> Notification {
        Notification {
            sched: sched.clone(),
            waiters: RefCell::new(VecDeque::new()),
            what,
        }
    }

    // ANCHOR: notification
    /// Suspends this fiber until a `notify_one` or `notify_all` reaches it.
    ///
    /// # Panics
    ///
    /// Outside a fiber.
    pub fn wait(&self) {
        let ticket = self.sched.ticket();
        self.waiters.borrow_mut().push_back(ticket);
        self.sched.block(ticket, self.what, None);
    }

    /// Wakes the fiber that has waited longest; false if none waits.
    pub fn notify_one(&self) -> bool {
        loop {
            let Some(ticket) = self.waiters.borrow_mut().pop_front() else {
                return false;
            };
            // A ticket whose fiber is gone (unwound) wakes nothing: try the
            // next one.
            if self.sched.unblock(ticket) {
                return true;
            }
        }
    }
    // ANCHOR_END: notification

    /// Wakes every waiting fiber; returns how many.
    pub fn notify_all(&self) -> usize {
        let waiters = std::mem::take(&mut *self.waiters.borrow_mut());
        waiters
            .into_iter()
            .filter(|&ticket| self.sched.unblock(ticket))
            .count()
    }

    /// How many fibers wait.
    pub fn waiting(&self) -> usize {
        self.waiters.borrow().len()
    }
}

impl fmt::Debug for Notification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notification")
            .field("what", &self.what)
            .field("waiting", &self.waiting())
            .finish()
    }
}
