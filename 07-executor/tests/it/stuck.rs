//! A run that nothing can wake any more ends with an error that says who
//! waits on what, instead of sleeping forever.

use std::time::Duration;

use executor::{Executor, Semaphore};

use crate::util::{Forgetful, try_block_on};

#[test]
fn a_future_that_kept_no_waker_is_reported() {
    let error = try_block_on(|_: &Executor| Forgetful).expect_err("nothing can wake it");
    assert_eq!(
        error,
        "stuck: 1 task waits and nothing can wake them \
         (1 on nothing: its future returned Pending and kept no waker)"
    );
}

/// One task holds the only permit and waits on a future that kept no
/// waker; another waits for the permit; `block_on` waits for the second.
/// The semaphore and the join handle hold wakers, but only a task could
/// ever use them, and none can run.
#[test]
fn tasks_waiting_on_each_other_are_reported_with_what_they_wait_on() {
    let error = try_block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let permits = Semaphore::new(&handle, 1);
            let held = permits.clone();
            handle.spawn(async move {
                let _permit = held.acquire().await;
                Forgetful.await;
            });
            let second = handle.spawn(async move {
                let _permit = permits.acquire().await;
            });
            second.await
        }
    })
    .expect_err("stuck");
    assert!(error.starts_with("stuck: 3 tasks wait"), "{error}");
    for what in [
        "1 on another task to finish",
        "1 on nothing: its future returned Pending and kept no waker",
        "1 on a semaphore permit",
    ] {
        assert!(error.contains(what), "{what}: {error}");
    }
}

/// A cancelled `Sleep` takes its timer with it: had it stayed in the heap,
/// the loop would have slept an hour before seeing it was stuck.
#[test]
fn a_dropped_sleep_leaves_no_timer_to_wait_for() {
    let error = try_block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let timed_out = handle.timeout(Duration::from_secs(3600), async {}).await;
            assert!(timed_out.is_ok());
            Forgetful.await;
        }
    })
    .expect_err("stuck at once");
    assert!(error.contains("kept no waker"), "{error}");
}
