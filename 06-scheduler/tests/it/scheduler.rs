//! The scheduler's basic contract: spawning, yielding, sleeping, timers.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use scheduler::{RunError, Scheduler};

use crate::util::run;

#[test]
fn run_with_no_fiber_returns_at_once() {
    let sched = Scheduler::new().expect("a scheduler");
    assert_eq!(run(&sched).stats.spawned, 0);
}

#[test]
fn spawned_fibers_run_in_order_and_yield_round_robin() {
    let sched = Scheduler::new().expect("a scheduler");
    let log = Rc::new(RefCell::new(Vec::new()));
    for name in ["a", "b", "c"] {
        let (sched2, log) = (sched.clone(), log.clone());
        sched
            .spawn(move || {
                for turn in 0..2 {
                    log.borrow_mut().push(format!("{name}{turn}"));
                    sched2.yield_now();
                }
            })
            .expect("spawn");
    }
    run(&sched);
    assert_eq!(*log.borrow(), ["a0", "b0", "c0", "a1", "b1", "c1"]);
}

#[test]
fn timers_fire_in_deadline_order() {
    let sched = Scheduler::new().expect("a scheduler");
    let woke = Rc::new(RefCell::new(Vec::new()));
    // Spawned in a scrambled order; b1 and b2 sleep equally long. The
    // steps are 10 ms apart so that a loaded machine, which may pause
    // between two fibers' `sleep` calls, cannot swap two deadlines.
    for (name, ms) in [
        ("d", 40),
        ("a", 10),
        ("c", 30),
        ("b1", 20),
        ("b2", 20),
        ("e", 50),
    ] {
        let (sched2, woke) = (sched.clone(), woke.clone());
        sched
            .spawn(move || {
                sched2.sleep(Duration::from_millis(ms));
                woke.borrow_mut().push(name);
            })
            .expect("spawn");
    }
    let summary = run(&sched);
    assert_eq!(*woke.borrow(), ["a", "b1", "b2", "c", "d", "e"]);
    assert_eq!(summary.stats.timers_fired, 6);
}

#[test]
fn a_deadline_is_kept_however_late_the_sleep_starts() {
    // `a` reads the clock, then its thread stalls (as a preempted thread
    // would) past `b`'s start, then sleeps until its deadline; `b`'s
    // deadline is later. Had `a` slept for the time left as it was before
    // the stall, its timer would be 15 ms late, behind `b`'s.
    let sched = Scheduler::new().expect("a scheduler");
    let start = Instant::now();
    let log = Rc::new(RefCell::new(Vec::new()));
    let (s, l) = (sched.clone(), log.clone());
    sched
        .spawn(move || {
            let deadline = start + Duration::from_millis(20);
            std::thread::sleep(Duration::from_millis(15));
            s.sleep_until(deadline);
            l.borrow_mut().push("a");
        })
        .expect("spawn");
    let (s, l) = (sched.clone(), log.clone());
    sched
        .spawn(move || {
            s.sleep_until(start + Duration::from_millis(25));
            l.borrow_mut().push("b");
        })
        .expect("spawn");
    run(&sched);
    assert_eq!(
        *log.borrow(),
        ["a", "b"],
        "a's deadline (20 ms) comes before b's (25 ms), whenever a asked"
    );
    assert!(start.elapsed() >= Duration::from_millis(25), "never early");
}

#[test]
fn fibers_can_spawn_fibers_and_join_them() {
    let sched = Scheduler::new().expect("a scheduler");
    let sched2 = sched.clone();
    let outer = sched
        .spawn(move || {
            let children: Vec<_> = (1..=3u64)
                .map(|n| {
                    let sched3 = sched2.clone();
                    sched2
                        .spawn(move || {
                            sched3.sleep(Duration::from_millis(n));
                            n * 10
                        })
                        .expect("spawn")
                })
                .collect();
            children
                .into_iter()
                .map(|child| child.join().expect("the child returns"))
                .sum::<u64>()
        })
        .expect("spawn");
    let summary = run(&sched);
    assert_eq!(outer.try_join(), Some(Ok(60)));
    assert_eq!(summary.stats.spawned, 4);
}

#[test]
fn stacks_are_reused() {
    let sched = Scheduler::new().expect("a scheduler");
    let sched2 = sched.clone();
    // One fiber at a time, a hundred times: one stack for all of them
    // (plus the spawner's).
    sched
        .spawn(move || {
            for _ in 0..100 {
                let child = sched2.spawn(|| ()).expect("spawn");
                child.join().expect("the child returns");
            }
        })
        .expect("spawn");
    let stats = run(&sched).stats;
    assert_eq!(stats.spawned, 101);
    assert_eq!(stats.stacks_created, 2);
}

#[test]
fn running_a_scheduler_inside_a_fiber_is_refused() {
    let outer = Scheduler::new().expect("a scheduler");
    let nested = outer
        .spawn(|| {
            let inner = Scheduler::new().expect("a scheduler");
            matches!(inner.run(), Err(RunError::Nested))
        })
        .expect("spawn");
    run(&outer);
    assert_eq!(nested.try_join(), Some(Ok(true)));
}

#[test]
fn a_block_with_a_timeout_times_out() {
    let sched = Scheduler::new().expect("a scheduler");
    let sched2 = sched.clone();
    let woken = sched
        .spawn(move || {
            let ticket = sched2.ticket();
            sched2.block(ticket, "nobody", Some(Duration::from_millis(1)))
        })
        .expect("spawn");
    run(&sched);
    assert_eq!(woken.try_join(), Some(Ok(scheduler::Woken::TimedOut)));
}

#[test]
fn a_stale_ticket_cannot_end_a_later_wait() {
    let sched = Scheduler::new().expect("a scheduler");
    let first_ticket = Rc::new(std::cell::Cell::new(None));
    let waiter = {
        let (sched2, first_ticket) = (sched.clone(), first_ticket.clone());
        sched
            .spawn(move || {
                let first = sched2.ticket();
                first_ticket.set(Some(first));
                // This wait times out: `first` is now stale...
                sched2.block(first, "nobody", Some(Duration::from_millis(1)));
                // ...and must not end this one, which should time out too.
                let second = sched2.ticket();
                sched2.block(second, "nobody", Some(Duration::from_millis(30)))
            })
            .expect("spawn")
    };
    let stale_unblock = {
        let sched2 = sched.clone();
        sched
            .spawn(move || {
                sched2.sleep(Duration::from_millis(10));
                let first = first_ticket.get().expect("the waiter ran first");
                sched2.unblock(first)
            })
            .expect("spawn")
    };
    run(&sched);
    assert_eq!(stale_unblock.try_join(), Some(Ok(false)));
    assert_eq!(waiter.try_join(), Some(Ok(scheduler::Woken::TimedOut)));
}
