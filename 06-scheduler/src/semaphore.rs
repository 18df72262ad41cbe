//! [`Semaphore`]: at most N holders at once, the rest wait in line.
//!
//! The Twisted article found no use for a semaphore; this stage has two:
//! [`crate::TaskLimiter`] is a semaphore whose permits are "fibers allowed
//! to run", and [`crate::Mutex`] is a semaphore with one permit.
//!
//! # Fair: the permit is handed over
//!
//! A naive release puts the permit back and wakes a waiter, which takes it
//! when it runs. But it runs *later* (next turn of the loop), and in between
//! a fiber that never waited can call `acquire`, find the permit, and take
//! it: the woken waiter finds nothing and goes back to the end of the line.
//! Under load a waiter can lose this race forever. So [`Permit`]'s drop
//! hands the permit *directly* to the first waiter: the count stays at
//! zero, nobody can barge in, and the waiter wakes already holding it.
//! Waiters are served first come, first served; the Twisted article's mutex
//! pops the *last* waiter (`self.waiters.pop()`), so under contention the
//! first to ask may be served last, or never.
//!
//! Not here: the queue of waiting fibers ([`crate::Notification`]).

use std::cell::Cell;
use std::fmt;
use std::rc::Rc;

use crate::notification::Notification;
use crate::scheduler::Scheduler;

/// A counting semaphore for fibers. Cloning it gives another handle to the
/// same permits.
///
/// # Examples
///
/// Five fibers, two permits: never more than two hold one at once.
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use std::time::Duration;
///
/// use scheduler::{Scheduler, Semaphore};
///
/// let sched = Scheduler::new()?;
/// let semaphore = Semaphore::new(&sched, 2);
/// let (holding, most) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
/// for _ in 0..5 {
///     let (sched2, semaphore) = (sched.clone(), semaphore.clone());
///     let (holding, most) = (holding.clone(), most.clone());
///     sched.spawn(move || {
///         let _permit = semaphore.acquire(); // Waits in line for a permit.
///         holding.set(holding.get() + 1);
///         most.set(most.get().max(holding.get()));
///         sched2.sleep(Duration::from_millis(1)); // Other fibers run.
///         holding.set(holding.get() - 1);
///     })?;
/// }
/// sched.run()?;
/// assert_eq!(most.get(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Semaphore {
    inner: Rc<Inner>,
}

struct Inner {
    permits: Cell<usize>,
    /// Fibers waiting for a permit, first come first served.
    waiters: Notification,
}

/// One permit, given back when dropped. It owns a handle to its semaphore,
/// so it can move into a fiber (`TaskLimiter` does that).
#[must_use = "the permit is given back as soon as it is dropped"]
pub struct Permit {
    semaphore: Semaphore,
}

impl Semaphore {
    /// A semaphore with `permits` permits.
    pub fn new(sched: &Scheduler, permits: usize) -> Semaphore {
        Semaphore::named(sched, permits, "a semaphore")
    }

    /// A semaphore that deadlock reports call `what`.
    pub fn named(sched: &Scheduler, permits: usize, what: &'static str) -> Semaphore {
        Semaphore {
            inner: Rc::new(Inner {
                permits: Cell::new(permits),
                waiters: Notification::named(sched, what),
            }),
        }
    }

    // ANCHOR: semaphore
    /// Takes a permit, waiting in line for one if none is free.
    ///
    /// # Panics
    ///
    /// Outside a fiber, when it would have to wait.
    pub fn acquire(&self) -> Permit {
        match self.inner.permits.get() {
            0 => {
                // Woken only by a release, which handed us its permit.
                self.inner.waiters.wait();
            }
            n => self.inner.permits.set(n - 1),
        }
        Permit {
            semaphore: self.clone(),
        }
    }

    /// Gives a permit back: to the first waiter if there is one (it wakes
    /// holding it), else to the count.
    fn release(&self) {
        if !self.inner.waiters.notify_one() {
            self.inner.permits.set(self.inner.permits.get() + 1);
        }
    }
    // ANCHOR_END: semaphore

    /// Takes a permit if one is free now, without waiting.
    pub fn try_acquire(&self) -> Option<Permit> {
        let n = self.inner.permits.get();
        if n == 0 {
            return None;
        }
        self.inner.permits.set(n - 1);
        Some(Permit {
            semaphore: self.clone(),
        })
    }

    /// Permits free right now.
    pub fn available(&self) -> usize {
        self.inner.permits.get()
    }

    /// Fibers waiting for a permit.
    pub fn waiting(&self) -> usize {
        self.inner.waiters.waiting()
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.semaphore.release();
    }
}

impl fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Semaphore")
            .field("available", &self.available())
            .field("waiting", &self.waiting())
            .finish()
    }
}

impl fmt::Debug for Permit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit").finish_non_exhaustive()
    }
}
