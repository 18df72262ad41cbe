//! The fiber primitives: FIFO order, hand-over, limits, keys freed.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use scheduler::{KeyedLocks, Mutex, Scheduler, Semaphore, TaskLimiter};

use crate::util::run;

#[test]
fn the_mutex_serves_waiters_in_the_order_they_came() {
    let sched = Scheduler::new().expect("a scheduler");
    let lock = Rc::new(Mutex::new(&sched, Vec::new()));
    for n in 0..5 {
        let (sched2, lock) = (sched.clone(), lock.clone());
        sched
            .spawn(move || {
                let mut order = lock.lock();
                order.push(n);
                // Hold the lock across a wait: every later fiber queues.
                sched2.sleep(Duration::from_millis(1));
            })
            .expect("spawn");
    }
    run(&sched);
    let lock = Rc::try_unwrap(lock).expect("the fibers are gone");
    assert_eq!(lock.into_inner(), [0, 1, 2, 3, 4]);
}

#[test]
fn a_released_lock_goes_to_the_waiter_not_to_a_newcomer() {
    // The holder releases and, in the same turn, tries to take the lock
    // again: with hand-over, the waiter already owns it.
    let sched = Scheduler::new().expect("a scheduler");
    let lock = Rc::new(Mutex::new(&sched, ()));
    let holder = {
        let (sched2, lock) = (sched.clone(), lock.clone());
        sched
            .spawn(move || {
                let guard = lock.lock();
                sched2.yield_now();
                drop(guard);
                lock.try_lock().is_some()
            })
            .expect("spawn")
    };
    let waiter = {
        let lock = lock.clone();
        sched.spawn(move || drop(lock.lock())).expect("spawn")
    };
    run(&sched);
    assert_eq!(holder.try_join(), Some(Ok(false)), "the newcomer barged in");
    assert!(waiter.is_finished());
}

#[test]
fn a_semaphore_admits_at_most_its_permits() {
    let sched = Scheduler::new().expect("a scheduler");
    let permits = Semaphore::new(&sched, 3);
    let (inside, peak) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    for _ in 0..10 {
        let (sched2, permits) = (sched.clone(), permits.clone());
        let (inside, peak) = (inside.clone(), peak.clone());
        sched
            .spawn(move || {
                let _permit = permits.acquire();
                inside.set(inside.get() + 1);
                peak.set(peak.get().max(inside.get()));
                sched2.sleep(Duration::from_millis(1));
                inside.set(inside.get() - 1);
            })
            .expect("spawn");
    }
    run(&sched);
    assert_eq!(peak.get(), 3);
    assert_eq!(permits.available(), 3);
}

#[test]
fn the_task_limiter_keeps_at_most_n_fibers_alive() {
    let sched = Scheduler::new().expect("a scheduler");
    let peak = Rc::new(Cell::new(0));
    let sched2 = sched.clone();
    let peak2 = peak.clone();
    sched
        .spawn(move || {
            let limiter = Rc::new(TaskLimiter::new(&sched2, 4));
            for _ in 0..20 {
                let (sched3, limiter2, peak) = (sched2.clone(), limiter.clone(), peak2.clone());
                limiter
                    .spawn(move || {
                        peak.set(peak.get().max(limiter2.running()));
                        sched3.sleep(Duration::from_millis(1));
                    })
                    .expect("spawn");
            }
        })
        .expect("spawn");
    let stats = run(&sched).stats;
    assert_eq!(peak.get(), 4);
    // Four item fibers and the spawner at most.
    assert_eq!(stats.peak_live, 5);
}

#[test]
fn keyed_locks_serialise_one_key_and_leave_others_free() {
    let sched = Scheduler::new().expect("a scheduler");
    let locks = Rc::new(KeyedLocks::new(&sched));
    let log = Rc::new(RefCell::new(Vec::new()));
    for (fiber, key) in [(0, "a"), (1, "a"), (2, "b")] {
        let (sched2, locks, log) = (sched.clone(), locks.clone(), log.clone());
        sched
            .spawn(move || {
                let _key = locks.lock(key);
                log.borrow_mut().push(format!("{fiber} in"));
                sched2.sleep(Duration::from_millis(2));
                log.borrow_mut().push(format!("{fiber} out"));
            })
            .expect("spawn");
    }
    run(&sched);
    let log = log.borrow();
    let at = |event: &str| log.iter().position(|e| e == event).expect("logged");
    // Fiber 2 (key b) did not wait for fiber 0; fiber 1 (key a) did.
    assert!(at("2 in") < at("0 out"), "{log:?}");
    assert!(at("0 out") < at("1 in"), "{log:?}");
    assert!(locks.is_empty(), "unused keys are forgotten");
}

#[test]
fn a_key_lock_stays_while_someone_waits_for_it() {
    let sched = Scheduler::new().expect("a scheduler");
    let locks = Rc::new(KeyedLocks::new(&sched));
    let sizes = Rc::new(RefCell::new(Vec::new()));
    for _ in 0..2 {
        let (sched2, locks, sizes) = (sched.clone(), locks.clone(), sizes.clone());
        sched
            .spawn(move || {
                let guard = locks.lock(1u64);
                sched2.sleep(Duration::from_millis(1));
                drop(guard);
                sizes.borrow_mut().push(locks.len());
            })
            .expect("spawn");
    }
    run(&sched);
    // After the first release the second fiber holds it; after the second,
    // nothing is left.
    assert_eq!(*sizes.borrow(), [1, 0]);
}
