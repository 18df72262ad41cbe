//! Chapter 7, exercise 1: the lock of the Twisted article, made fair.
//!
//! The article's `Mutex.release` wakes `self.waiters.pop()`: the *last*
//! fiber that asked. Under steady contention the first one to ask can wait
//! forever while newcomers overtake it. [`Lock`] is the article's lock
//! rebuilt on the scheduler's wake tickets: `lock` queues this fiber's ticket
//! and blocks; `unlock` must hand the lock to the fiber that has waited
//! *longest*, without ever letting it go free in between (a fiber that
//! calls `lock` at that moment must not barge in).
//!
//! [`Lock::lock`] is written; write [`Lock::unlock`].
//!
//! Fiber 0 holds the lock while 1 and 2 queue for it, in that order; they
//! get it in that order:
//!
//! ```
//! use std::{cell::RefCell, rc::Rc};
//! use ch07_fifo_lock::Lock;
//! use scheduler::Scheduler;
//!
//! let sched = Scheduler::new()?;
//! let (lock, order) = (Rc::new(Lock::new(&sched)), Rc::new(RefCell::new(Vec::new())));
//! for n in 0..3 {
//!     let (sched2, lock, order) = (sched.clone(), lock.clone(), order.clone());
//!     sched.spawn(move || {
//!         lock.lock();
//!         order.borrow_mut().push(n);
//!         sched2.yield_now(); // the others ask meanwhile
//!         lock.unlock();
//!     })?;
//! }
//! sched.run()?;
//! assert_eq!(*order.borrow(), [0, 1, 2], "first come, first served");
//! assert!(!lock.is_locked(), "free once nobody holds it");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch07-fifo-lock");

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use scheduler::{Scheduler, WakeTicket};

/// A fiber lock without data (the article's `DeferredLock`).
#[derive(Debug)]
pub struct Lock {
    sched: Scheduler,
    locked: Cell<bool>,
    /// The waiting fibers, in the order they asked.
    waiters: RefCell<VecDeque<WakeTicket>>,
}

impl Lock {
    /// An unlocked lock on `sched`.
    pub fn new(sched: &Scheduler) -> Lock {
        Lock {
            sched: sched.clone(),
            locked: Cell::new(false),
            waiters: RefCell::new(VecDeque::new()),
        }
    }

    /// Takes the lock, waiting in line if it is held. When this returns
    /// after waiting, `unlock` has handed the lock over: it is ours.
    pub fn lock(&self) {
        if !self.locked.get() {
            self.locked.set(true);
            return;
        }
        let ticket = self.sched.ticket();
        self.waiters.borrow_mut().push_back(ticket);
        self.sched.block(ticket, "a lock", None);
    }

    /// Is the lock held?
    pub fn is_locked(&self) -> bool {
        self.locked.get()
    }

    // ANCHOR: exercise
    /// Gives the lock up: to the fiber that has waited longest, if any
    /// (the lock stays locked, now on its behalf), else it becomes free.
    pub fn unlock(&self) {
        // TODO: which waiter has waited longest, and may the lock be free for a moment while it changes hands?
        todo!("which waiter has waited longest, and may the lock be free for a moment while it changes hands?")
    }
    // ANCHOR_END: exercise
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;
    use std::time::Duration;

    /// Runs a test's fibers on a thread of their own, so that a lost
    /// wake-up fails within 2 s, saying `never`, instead of hanging.
    fn bounded<T: Send + 'static>(never: &str, test: impl FnOnce() -> T + Send + 'static) -> T {
        testbed::testing::within_or(Duration::from_secs(2), never, test)
    }

    #[test]
    fn waiters_get_the_lock_in_the_order_they_asked() {
        bounded(
            "waiters get the lock in the order they asked: its fibers never all finished (one waits for a wake-up that never comes, or spins)",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let lock = Rc::new(Lock::new(&sched));
                let order = Rc::new(RefCell::new(Vec::new()));
                // How many fibers are inside the lock now, and the most ever.
                let inside = Rc::new(Cell::new((0, 0)));
                for n in 0..5 {
                    let (sched2, lock, order, inside) =
                        (sched.clone(), lock.clone(), order.clone(), inside.clone());
                    sched
                        .spawn(move || {
                            lock.lock();
                            let (now, most) = inside.get();
                            inside.set((now + 1, most.max(now + 1)));
                            order.borrow_mut().push(n);
                            // Hold it across a wait, so every other fiber queues.
                            sched2.sleep(Duration::from_millis(1));
                            inside.set((inside.get().0 - 1, inside.get().1));
                            lock.unlock();
                        })
                        .expect("spawn");
                }
                sched.run().expect("the scheduler finishes");
                assert_eq!(
                    inside.get().1,
                    1,
                    "only one fiber at a time should hold the lock"
                );
                // The article's `pop()` would give [0, 4, 3, 2, 1].
                assert_eq!(
                    *order.borrow(),
                    [0, 1, 2, 3, 4],
                    "waiters should get the lock in the order they asked (first come, first served)"
                );
            },
        );
    }

    #[test]
    fn the_lock_is_handed_over_not_left_free() {
        bounded(
            "the lock is handed over not left free: its fibers never all finished (one waits for a wake-up that never comes, or spins)",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let lock = Rc::new(Lock::new(&sched));
                let holder = {
                    let (sched2, lock) = (sched.clone(), lock.clone());
                    sched
                        .spawn(move || {
                            lock.lock();
                            sched2.yield_now();
                            lock.unlock();
                            // The waiter owns it now, though it has not run yet.
                            lock.is_locked()
                        })
                        .expect("spawn")
                };
                let waiter = {
                    let lock = lock.clone();
                    sched
                        .spawn(move || {
                            lock.lock();
                            lock.unlock();
                        })
                        .expect("spawn")
                };
                sched.run().expect("the scheduler finishes");
                assert_eq!(
                    holder.try_join(),
                    Some(Ok(true)),
                    "unlock with a waiter should hand the lock over: it must not be free for a moment"
                );
                assert!(
                    waiter.is_finished(),
                    "the waiter should get the lock and finish"
                );
                assert!(
                    !lock.is_locked(),
                    "the lock should be free once nobody waits"
                );
            },
        );
    }

    #[test]
    fn unlock_without_waiters_frees_the_lock() {
        bounded(
            "unlock without waiters frees the lock: its fibers never all finished (one waits for a wake-up that never comes, or spins)",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let lock = Rc::new(Lock::new(&sched));
                let lock2 = lock.clone();
                sched
                    .spawn(move || {
                        lock2.lock();
                        lock2.unlock();
                    })
                    .expect("spawn");
                sched.run().expect("the scheduler finishes");
                assert!(
                    !lock.is_locked(),
                    "unlock with nobody waiting should leave the lock free"
                );
            },
        );
    }

    #[test]
    fn a_fiber_waiting_for_the_lock_sleeps() {
        let got = testbed::testing::assert_quiet_within(
            Duration::from_secs(2),
            "the waiter never got the lock its holder gave up after 200 ms",
            "a fiber waiting 200 ms for the lock",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let lock = Rc::new(Lock::new(&sched));
                let (sched2, lock2) = (sched.clone(), lock.clone());
                sched
                    .spawn(move || {
                        lock2.lock();
                        sched2.sleep(Duration::from_millis(200));
                        lock2.unlock();
                    })
                    .expect("spawn");
                let lock2 = lock.clone();
                let waiter = sched
                    .spawn(move || {
                        lock2.lock();
                        lock2.unlock();
                        true
                    })
                    .expect("spawn");
                sched.run().expect("the scheduler finishes");
                (waiter.try_join(), lock.is_locked())
            },
        );
        assert_eq!(
            got,
            (Some(Ok(true)), false),
            "the waiter should get the lock, and leave it free"
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;
        use scheduler::Notification;
        use testbed::testing::proptest_config;

        /// What happens next to the lock.
        #[derive(Debug, Clone, Copy)]
        enum Step {
            /// A new fiber calls `lock` (and keeps the lock until told).
            Arrive,
            /// The fiber holding the lock calls `unlock`.
            Release,
            /// A waiter goes away: its place in the line holds a ticket
            /// whose fiber is gone.
            Leave,
        }

        /// What the lock did, step by step: who got it, in order, and
        /// whether it was locked after each step.
        type Seen = (Vec<usize>, Vec<bool>);

        /// Runs `steps` against the lock, with a fiber per arrival.
        fn run(steps: Vec<Step>) -> Seen {
            let sched = Scheduler::new().expect("a scheduler");
            let lock = Rc::new(Lock::new(&sched));
            let acquired = Rc::new(RefCell::new(Vec::new()));
            // Who may unlock now, and the bell that tells them.
            let release = Rc::new(Cell::new(None));
            let go = Rc::new(Notification::new(&sched));
            let locked = Rc::new(RefCell::new(Vec::new()));
            let (sched2, locked2) = (sched.clone(), locked.clone());
            sched
                .spawn(move || {
                    // Lets the fibers run until each waits again.
                    let settle = || (0..6).for_each(|_| sched2.yield_now());
                    let mut arrivals = 0;
                    for step in steps {
                        match step {
                            Step::Arrive => {
                                let k = arrivals;
                                arrivals += 1;
                                let (lock, acquired, release, go) =
                                    (lock.clone(), acquired.clone(), release.clone(), go.clone());
                                sched2
                                    .spawn(move || {
                                        lock.lock();
                                        acquired.borrow_mut().push(k);
                                        while release.get() != Some(k) {
                                            go.wait();
                                        }
                                        lock.unlock();
                                    })
                                    .expect("spawn");
                            }
                            Step::Release => {
                                if let Some(&holder) = acquired.borrow().last() {
                                    release.set(Some(holder));
                                    go.notify_all();
                                }
                            }
                            Step::Leave => {
                                if lock.is_locked() {
                                    let lock = lock.clone();
                                    let ghost = sched2.clone();
                                    sched2
                                        .spawn(move || {
                                            lock.waiters.borrow_mut().push_back(ghost.ticket());
                                        })
                                        .expect("spawn");
                                }
                            }
                        }
                        settle();
                        locked2.borrow_mut().push(lock.is_locked());
                    }
                    let order = acquired.borrow().clone();
                    // Let everyone through, so every fiber ends.
                    for _ in 0..arrivals {
                        if let Some(&holder) = acquired.borrow().last() {
                            release.set(Some(holder));
                            go.notify_all();
                        }
                        settle();
                    }
                    order
                })
                .map(|director| {
                    sched.run().expect("the scheduler finishes");
                    let order = director.try_join().expect("finished").expect("no panic");
                    (order, locked.take())
                })
                .expect("spawn")
        }

        /// The model: a holder and a first-come, first-served line.
        fn model(steps: &[Step]) -> Seen {
            let (mut holder, mut line) = (None, VecDeque::new());
            let (mut order, mut locked, mut arrivals) = (Vec::new(), Vec::new(), 0);
            for step in steps {
                match step {
                    Step::Arrive if holder.is_none() => {
                        holder = Some(arrivals);
                        order.push(arrivals);
                        arrivals += 1;
                    }
                    Step::Arrive => {
                        line.push_back(Some(arrivals));
                        arrivals += 1;
                    }
                    // The first waiter still there gets it; a gone one is
                    // skipped; with nobody left, the lock is free.
                    Step::Release if holder.is_some() => {
                        holder = line.pop_front().flatten();
                        while holder.is_none() && !line.is_empty() {
                            holder = line.pop_front().flatten();
                        }
                        order.extend(holder);
                    }
                    Step::Release => {}
                    Step::Leave if holder.is_some() => line.push_back(None),
                    Step::Leave => {}
                }
                locked.push(holder.is_some());
            }
            (order, locked)
        }

        proptest! {
            #![proptest_config(proptest_config(48))]

            #[test]
            fn the_lock_serves_first_come_first_served(
                steps in proptest::collection::vec(
                    prop_oneof![3 => Just(Step::Arrive), 3 => Just(Step::Release), 1 => Just(Step::Leave)],
                    1..30,
                ),
            ) {
                let expected = model(&steps);
                let shown = format!("{steps:?}");
                let seen = bounded(
                    "the lock's fibers never all finished: a waiter was never handed the lock",
                    move || run(steps),
                );
                prop_assert_eq!(
                    &seen.0,
                    &expected.0,
                    "after {}: the fibers should get the lock in this order (first come, first served, gone waiters skipped)",
                    shown
                );
                prop_assert_eq!(
                    &seen.1,
                    &expected.1,
                    "after {}: is_locked after each step should be as shown (handed over, never free while someone waits)",
                    shown
                );
            }
        }
    }
}
