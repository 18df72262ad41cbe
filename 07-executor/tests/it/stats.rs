//! `Stats`: each counter counts what its doc says, on a run small enough
//! to count by hand.

use std::time::Duration;

use executor::Executor;

use crate::util::within;

/// Two tasks, one that sleeps and one that panics, joined by the root.
/// The polls, in order: `a` sets its timer (idle), `b` panics (idle), the
/// root waits for `a` (idle); the timer fires: `a` finishes (progress),
/// the root takes both results (progress).
#[test]
fn the_counters_count_what_their_docs_say() {
    let stats = within("stats", || {
        let executor = Executor::new().expect("an executor");
        let sleeper = executor.handle();
        let a = executor.spawn(async move {
            sleeper.sleep(Duration::from_millis(1)).await;
            1
        });
        let b = executor.spawn(async { panic!("b fails") });
        executor
            .block_on(async move {
                let _ = a.await;
                let _ = b.await;
            })
            .expect("the run ends");
        executor.stats()
    });
    assert_eq!(stats.spawned, 2);
    assert_eq!(stats.peak_tasks, 2, "the root is not counted");
    assert_eq!(stats.timers_fired, 1);
    assert_eq!(stats.panics, 1);
    assert_eq!(stats.polls, 5, "{stats:?}");
    assert_eq!(stats.idle_polls, 3, "{stats:?}");
    assert!(
        stats.waits >= 1,
        "the loop slept until the timer: {stats:?}"
    );
    assert_eq!(stats.interrupts, 0, "no wake came from another thread");
}
