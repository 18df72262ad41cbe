//! [`Mutex`]: one fiber at a time, across suspensions, first come first
//! served.
//!
//! Fibers of one scheduler never run at the same time, so why lock? Because
//! a fiber can be *suspended* in the middle of an update: it reads a value,
//! waits for a slow reply (other fibers run), and writes. Any fiber that
//! touched the value meanwhile has its work overwritten. That is the
//! Twisted article's race, and `race.rs` runs it. The lock has to be held
//! across the wait, so it cannot be a `RefCell` borrow (which would panic
//! the second fiber instead of making it wait) nor `std::sync::Mutex`
//! (which would block the *thread*, and with it the fiber holding the lock:
//! a deadlock on the first contention).
//!
//! A `Mutex` is a [`Semaphore`] with one permit, plus the value it guards.
//! FIFO order and the hand-over come from the semaphore.
//!
//! Not here: one lock per key ([`crate::KeyedLocks`]).

use std::cell::{RefCell, RefMut};
use std::fmt;
use std::ops::{Deref, DerefMut};

use crate::scheduler::Scheduler;
use crate::semaphore::{Permit, Semaphore};

/// A fiber mutex guarding a `T`.
///
/// # Examples
///
/// Two fibers add to one balance, each waiting (for the bank, say) between
/// reading it and writing it back. Holding the lock across the wait, no
/// update is lost:
///
/// ```
/// use std::rc::Rc;
/// use std::time::Duration;
///
/// use scheduler::{Mutex, Scheduler};
///
/// let sched = Scheduler::new()?;
/// let balance = Rc::new(Mutex::new(&sched, 100));
/// for amount in [20, 30] {
///     let (sched2, balance) = (sched.clone(), balance.clone());
///     sched.spawn(move || {
///         let mut guard = balance.lock();
///         let read = *guard;
///         sched2.sleep(Duration::from_millis(1)); // The other fiber runs.
///         *guard = read + amount;
///     })?;
/// }
/// sched.run()?;
/// assert_eq!(*balance.lock(), 150);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Mutex<T> {
    lock: Semaphore,
    value: RefCell<T>,
}

/// Access to the guarded value; the lock goes to the next waiter when this
/// drops.
pub struct MutexGuard<'a, T> {
    // Field order matters: the borrow ends before the permit is handed on.
    value: RefMut<'a, T>,
    _permit: Permit,
}

impl<T> Mutex<T> {
    /// A mutex guarding `value`.
    pub fn new(sched: &Scheduler, value: T) -> Mutex<T> {
        Mutex {
            lock: Semaphore::named(sched, 1, "a mutex"),
            value: RefCell::new(value),
        }
    }

    /// Locks, waiting in line if another fiber holds the lock.
    ///
    /// # Panics
    ///
    /// Outside a fiber, when it would have to wait.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        let permit = self.lock.acquire();
        MutexGuard {
            // Cannot fail: the permit is the only way to this borrow, and
            // there is one permit.
            value: self.value.borrow_mut(),
            _permit: permit,
        }
    }

    /// Locks if the lock is free now.
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        let permit = self.lock.try_acquire()?;
        Some(MutexGuard {
            value: self.value.borrow_mut(),
            _permit: permit,
        })
    }

    /// Fibers waiting for the lock.
    pub fn waiting(&self) -> usize {
        self.lock.waiting()
    }

    /// The value, once no one can lock any more.
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }
}

impl<T> Deref for MutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Mutex");
        match self.value.try_borrow() {
            Ok(value) => d.field("value", &*value),
            Err(_) => d.field("value", &"<locked>"),
        };
        d.field("waiting", &self.waiting()).finish()
    }
}

impl<T: fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.value, f)
    }
}
