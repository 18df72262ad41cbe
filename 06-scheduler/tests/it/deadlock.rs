//! Deadlock detection: fibers that can never wake make `run` return an
//! error saying how many and on what, instead of sleeping forever.

use std::rc::Rc;
use std::time::Duration;

use scheduler::{KeyedLocks, Mutex, Notification, RunError, Scheduler};

#[test]
fn two_fibers_locking_two_mutexes_in_opposite_orders() {
    let sched = Scheduler::new().expect("a scheduler");
    let a = Rc::new(Mutex::new(&sched, ()));
    let b = Rc::new(Mutex::new(&sched, ()));
    for (first, second) in [(a.clone(), b.clone()), (b, a)] {
        let sched2 = sched.clone();
        sched
            .spawn(move || {
                let _one = first.lock();
                // Let the other fiber take its first lock too.
                sched2.yield_now();
                let _two = second.lock();
            })
            .expect("spawn");
    }
    match sched.run() {
        Err(RunError::Deadlock(deadlock)) => {
            assert_eq!(deadlock.stuck.len(), 2);
            assert!(deadlock.stuck.iter().all(|(_, on)| *on == "a mutex"));
            assert_eq!(
                deadlock.to_string(),
                "deadlock: 2 fibers blocked with nothing left to wake them (2 on a mutex)"
            );
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

#[test]
fn two_fibers_locking_two_keys_in_opposite_orders() {
    let sched = Scheduler::new().expect("a scheduler");
    let locks = Rc::new(KeyedLocks::new(&sched));
    for (first, second) in [("kolya", "wife"), ("wife", "kolya")] {
        let (sched2, locks) = (sched.clone(), locks.clone());
        sched
            .spawn(move || {
                let _one = locks.lock(first);
                sched2.yield_now();
                let _two = locks.lock(second);
            })
            .expect("spawn");
    }
    match sched.run() {
        Err(RunError::Deadlock(deadlock)) => assert_eq!(
            deadlock.to_string(),
            "deadlock: 2 fibers blocked with nothing left to wake them (2 on a keyed lock)"
        ),
        other => panic!("expected a deadlock, got {other:?}"),
    }
    // Unwinding the stuck fibers dropped their guards: no key is left.
    assert!(locks.is_empty());
}

#[test]
fn a_deadlocked_run_unwinds_its_fibers_and_the_scheduler_is_reusable() {
    let sched = Scheduler::new().expect("a scheduler");
    let unwound = Rc::new(std::cell::Cell::new(false));
    {
        let sched2 = sched.clone();
        let unwound = unwound.clone();
        sched
            .spawn(move || {
                // Its destructor runs when the stuck fiber is unwound.
                let _flag = SetOnDrop(unwound);
                Notification::new(&sched2).wait();
            })
            .expect("spawn");
    }
    assert!(matches!(sched.run(), Err(RunError::Deadlock(_))));
    assert!(unwound.get(), "the stuck fiber was unwound");
    // The same scheduler runs new fibers afterwards.
    let again = sched.spawn(|| 42).expect("spawn");
    crate::util::run(&sched);
    assert_eq!(again.try_join(), Some(Ok(42)));
}

#[test]
fn a_fiber_waiting_on_a_timer_is_not_deadlocked() {
    // One fiber waits for a notification that a sleeping fiber will send:
    // while the timer is set, it can still be woken.
    let sched = Scheduler::new().expect("a scheduler");
    let ready = Rc::new(Notification::new(&sched));
    {
        let ready = ready.clone();
        sched.spawn(move || ready.wait()).expect("spawn");
    }
    let sched2 = sched.clone();
    sched
        .spawn(move || {
            sched2.sleep(Duration::from_millis(2));
            assert!(ready.notify_one());
        })
        .expect("spawn");
    crate::util::run(&sched);
}

#[test]
fn a_live_remote_handle_defers_the_verdict_until_it_drops() {
    let sched = Scheduler::new().expect("a scheduler");
    let remote = sched.remote();
    let sched2 = sched.clone();
    sched
        .spawn(move || {
            let ticket = sched2.ticket();
            sched2.block(ticket, "a thread that gives up", None);
        })
        .expect("spawn");
    // The thread could unblock the fiber, so the loop waits for it; it
    // drops its handle without unblocking, and then nothing can.
    let thread = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(5));
        drop(remote);
    });
    match sched.run() {
        Err(RunError::Deadlock(deadlock)) => {
            assert_eq!(deadlock.stuck.len(), 1);
            assert_eq!(deadlock.stuck[0].1, "a thread that gives up");
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
    thread.join().expect("the thread ends");
}

/// Sets its flag when dropped.
struct SetOnDrop(Rc<std::cell::Cell<bool>>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.set(true);
    }
}
