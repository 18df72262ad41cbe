//! Other threads: unblocking a fiber from another thread, and a fiber
//! waiting for work done on one.

use std::time::Duration;

use scheduler::{FiberError, Scheduler, Woken};

use crate::util::run;

#[test]
fn another_thread_unblocks_a_fiber() {
    let sched = Scheduler::new().expect("a scheduler");
    let remote = sched.remote();
    let (ticket_tx, ticket_rx) = crossbeam_channel::bounded(1);
    let sched2 = sched.clone();
    let woken = sched
        .spawn(move || {
            let ticket = sched2.ticket();
            ticket_tx.send(ticket).expect("the thread is listening");
            // No timeout: only the thread can end this wait.
            sched2.block(ticket, "the other thread", None)
        })
        .expect("spawn");
    let thread = std::thread::spawn(move || {
        let ticket = ticket_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the fiber sends its ticket");
        remote.unblock(ticket);
    });
    run(&sched);
    thread.join().expect("the thread ends");
    assert_eq!(woken.try_join(), Some(Ok(Woken::Unblocked)));
}

#[test]
fn other_fibers_run_while_one_waits_for_a_thread() {
    let sched = Scheduler::new().expect("a scheduler");
    let (release_tx, release_rx) = crossbeam_channel::bounded::<()>(1);
    let sched2 = sched.clone();
    let waiter = sched
        .spawn(move || {
            sched2
                .spawn_blocking(move || {
                    // Blocks this thread, not the scheduler's, until the
                    // other fiber says so.
                    release_rx
                        .recv_timeout(Duration::from_secs(10))
                        .expect("the other fiber releases us");
                    6 * 7
                })
                .expect("a thread starts")
        })
        .expect("spawn");
    let sched3 = sched.clone();
    sched
        .spawn(move || {
            // This fiber runs while the first one waits for its thread.
            sched3.sleep(Duration::from_millis(1));
            release_tx.send(()).expect("the thread waits");
        })
        .expect("spawn");
    run(&sched);
    assert_eq!(waiter.try_join(), Some(Ok(42)));
}

#[test]
fn a_panic_on_the_thread_becomes_the_fibers_panic() {
    let sched = Scheduler::new().expect("a scheduler");
    let sched2 = sched.clone();
    let waiter = sched
        .spawn(move || {
            sched2
                .spawn_blocking(|| -> u8 { panic!("the thread failed") })
                .expect("a thread starts")
        })
        .expect("spawn");
    run(&sched);
    match waiter.try_join() {
        Some(Err(FiberError::Panicked { message, .. })) => assert_eq!(message, "the thread failed"),
        other => panic!("expected the thread's panic, got {other:?}"),
    }
}
