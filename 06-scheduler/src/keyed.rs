//! [`KeyedLocks`]: one lock per key, made when first needed and dropped
//! when no longer used.
//!
//! The Twisted article ends with a pool of locks, one per object id, so two
//! requests about the same account wait for each other while requests about
//! different accounts go on in parallel. Its pool is a process-wide
//! singleton (a metaclass) and never forgets a lock: a long-running service
//! that sees a million accounts keeps a million locks. Here the pool is a
//! value you pass around, and a key's lock is removed as soon as nobody
//! holds it or waits for it, so the map only ever holds the keys in use.
//!
//! Each key's lock is a one-permit [`Semaphore`], so it is FIFO and hands
//! over like [`crate::Mutex`].
//!
//! Not here: guarding data (the lock guards a *section* of code, here a
//! read-modify-write across a slow request).

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;

use crate::scheduler::Scheduler;
use crate::semaphore::{Permit, Semaphore};

/// A lock per key.
///
/// # Examples
///
/// Fibers on the same account wait for each other; a fiber on another
/// account does not wait at all. A key's lock goes away with its last
/// holder.
///
/// ```
/// use std::cell::RefCell;
/// use std::rc::Rc;
/// use std::time::Duration;
///
/// use scheduler::{KeyedLocks, Scheduler};
///
/// let sched = Scheduler::new()?;
/// let locks = Rc::new(KeyedLocks::new(&sched));
/// let log = Rc::new(RefCell::new(Vec::new()));
/// for (fiber, account) in [(1, "kolya"), (2, "kolya"), (3, "masha")] {
///     let (sched2, locks, log) = (sched.clone(), locks.clone(), log.clone());
///     sched.spawn(move || {
///         let _guard = locks.lock(account);
///         log.borrow_mut().push(format!("{fiber} in"));
///         sched2.sleep(Duration::from_millis(1));
///         log.borrow_mut().push(format!("{fiber} out"));
///     })?;
/// }
/// sched.run()?;
/// // Fiber 3 went in while fiber 1 held kolya's lock; fiber 2 waited for it.
/// assert_eq!(log.borrow()[..3], ["1 in", "3 in", "1 out"]);
/// assert!(locks.is_empty(), "no lock outlives its last holder");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct KeyedLocks<K> {
    sched: Scheduler,
    locks: RefCell<HashMap<K, Semaphore>>,
}

/// Holds the lock of one key until dropped.
#[must_use = "the key is unlocked as soon as the guard is dropped"]
pub struct KeyGuard<'a, K: Hash + Eq + Clone> {
    locks: &'a KeyedLocks<K>,
    key: K,
    permit: Option<Permit>,
}

impl<K: Hash + Eq + Clone> KeyedLocks<K> {
    /// An empty pool of locks.
    pub fn new(sched: &Scheduler) -> KeyedLocks<K> {
        KeyedLocks {
            sched: sched.clone(),
            locks: RefCell::new(HashMap::new()),
        }
    }

    // ANCHOR: keyed
    /// Locks `key`, waiting in line if another fiber holds it.
    ///
    /// # Panics
    ///
    /// Outside a fiber, when it would have to wait.
    pub fn lock(&self, key: K) -> KeyGuard<'_, K> {
        let lock = self
            .locks
            .borrow_mut()
            .entry(key.clone())
            .or_insert_with(|| Semaphore::named(&self.sched, 1, "a keyed lock"))
            .clone();
        // The map is not borrowed while we wait: other fibers use it.
        let permit = lock.acquire();
        KeyGuard {
            locks: self,
            key,
            permit: Some(permit),
        }
    }
    // ANCHOR_END: keyed

    /// How many keys have a lock now (held, or waited for).
    pub fn len(&self) -> usize {
        self.locks.borrow().len()
    }

    /// True when no key is locked.
    pub fn is_empty(&self) -> bool {
        self.locks.borrow().is_empty()
    }
}

impl<K: Hash + Eq + Clone> Drop for KeyGuard<'_, K> {
    fn drop(&mut self) {
        // Hand the lock to the next waiter, if any...
        drop(self.permit.take());
        // ...and if there was none, nobody holds or wants this key's lock:
        // forget it. (A waiter that was just handed the permit keeps the
        // count at zero, so its lock stays.)
        let mut locks = self.locks.locks.borrow_mut();
        if locks
            .get(&self.key)
            .is_some_and(|lock| lock.available() == 1)
        {
            locks.remove(&self.key);
        }
    }
}

impl<K> fmt::Debug for KeyedLocks<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyedLocks")
            .field("keys", &self.locks.borrow().len())
            .finish()
    }
}

impl<K: Hash + Eq + Clone + fmt::Debug> fmt::Debug for KeyGuard<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyGuard").field("key", &self.key).finish()
    }
}
