//! A panic in a fiber ends that fiber only: it is caught at the fiber's
//! edge, reported as the fiber's error, and the others go on.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use scheduler::{FiberError, Mutex, Scheduler};

use crate::util::run;

#[test]
fn a_panicking_fiber_does_not_stop_the_others() {
    let sched = Scheduler::new().expect("a scheduler");
    let finished = Rc::new(Cell::new(0));
    let mut handles = Vec::new();
    for n in 0..3 {
        let (sched2, finished) = (sched.clone(), finished.clone());
        handles.push(
            sched
                .spawn(move || {
                    sched2.sleep(Duration::from_millis(1));
                    if n == 1 {
                        panic!("fiber {n} gives up");
                    }
                    finished.set(finished.get() + 1);
                    n
                })
                .expect("spawn"),
        );
    }
    let summary = run(&sched);
    assert_eq!(finished.get(), 2);
    let results: Vec<_> = handles
        .into_iter()
        .map(|h| h.try_join().expect("every fiber finished"))
        .collect();
    assert_eq!(results[0], Ok(0));
    assert_eq!(results[2], Ok(2));
    match &results[1] {
        Err(FiberError::Panicked { message, .. }) => assert_eq!(message, "fiber 1 gives up"),
        other => panic!("expected a panic, got {other:?}"),
    }
    assert_eq!(summary.panics.len(), 1);
    assert_eq!(summary.panics[0].message, "fiber 1 gives up");
}

#[test]
fn a_panic_while_holding_a_lock_releases_it() {
    let sched = Scheduler::new().expect("a scheduler");
    let lock = Rc::new(Mutex::new(&sched, 0));
    {
        let (sched2, lock) = (sched.clone(), lock.clone());
        sched
            .spawn(move || {
                let _held = lock.lock();
                sched2.sleep(Duration::from_millis(1));
                panic!("with the lock held");
            })
            .expect("spawn");
    }
    let waiter = {
        let lock = lock.clone();
        sched.spawn(move || *lock.lock() + 1).expect("spawn")
    };
    let summary = run(&sched);
    assert_eq!(summary.panics.len(), 1);
    // The guard was dropped by the unwinding, so the waiter got the lock.
    assert_eq!(waiter.try_join(), Some(Ok(1)));
}

#[test]
fn a_joiner_sees_the_panic_as_an_error() {
    let sched = Scheduler::new().expect("a scheduler");
    let sched2 = sched.clone();
    let joiner = sched
        .spawn(move || {
            let child = sched2
                .spawn(|| -> u8 { panic!("child failed") })
                .expect("spawn");
            child.join().map_err(|e| e.to_string())
        })
        .expect("spawn");
    run(&sched);
    let result = joiner.try_join().expect("finished").expect("no panic");
    let message = result.expect_err("the child panicked");
    assert!(message.ends_with("panicked: child failed"), "{message}");
}
