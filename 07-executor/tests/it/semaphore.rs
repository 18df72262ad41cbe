//! The FIFO semaphore: served in order, handed over without barging, and
//! a cancelled waiter passes on a permit it was handed.

use std::cell::RefCell;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::rc::Rc;
use std::task::Poll;
use std::time::Duration;

use executor::{Executor, Semaphore};

use crate::util::block_on;

/// Polls `future` once: `Some(output)` if that was enough.
async fn poll_once<F: Future + Unpin>(future: &mut F) -> Option<F::Output> {
    poll_fn(|cx| {
        Poll::Ready(match Pin::new(&mut *future).poll(cx) {
            Poll::Ready(output) => Some(output),
            Poll::Pending => None,
        })
    })
    .await
}

#[test]
fn waiters_get_permits_in_the_order_they_asked() {
    let order = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let permits = Semaphore::new(&handle, 1);
            let order = Rc::new(RefCell::new(Vec::new()));
            let mut tasks = Vec::new();
            for n in 0..5 {
                let (permits, order, sleeper) = (permits.clone(), order.clone(), handle.clone());
                tasks.push(handle.spawn(async move {
                    let _permit = permits.acquire().await;
                    order.borrow_mut().push(n);
                    // Hold it across a wait, so every other task queues.
                    sleeper.sleep(Duration::from_millis(1)).await;
                }));
            }
            for task in tasks {
                task.await.expect("no panic");
            }
            order.borrow().clone()
        }
    });
    assert_eq!(order, [0, 1, 2, 3, 4]);
}

#[test]
fn a_released_permit_goes_to_the_waiter_not_to_a_newcomer() {
    let (newcomer_got_it, waiter_got_it) = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let permits = Semaphore::new(&handle, 1);
            let held = permits.acquire().await;
            let mut waiter = permits.acquire();
            assert!(poll_once(&mut waiter).await.is_none(), "it queues");
            drop(held);
            // The waiter has not run since, but the permit is its own.
            let mut newcomer = permits.acquire();
            let newcomer_got_it = poll_once(&mut newcomer).await.is_some();
            let waiter_got_it = poll_once(&mut waiter).await.is_some();
            (newcomer_got_it, waiter_got_it)
        }
    });
    assert!(!newcomer_got_it && waiter_got_it);
}

/// A waiter handed a permit and then dropped (its `timeout` fired) must
/// pass the permit on, or it is lost for good.
#[test]
fn a_cancelled_waiter_passes_its_permit_on() {
    let (next_got_it, available) = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let permits = Semaphore::new(&handle, 1);
            let held = permits.acquire().await;
            let mut first = permits.acquire();
            let mut second = permits.acquire();
            assert!(poll_once(&mut first).await.is_none());
            assert!(poll_once(&mut second).await.is_none());
            drop(held); // Handed to `first`...
            drop(first); // ...which is cancelled before it takes it.
            let permit = poll_once(&mut second).await;
            let next_got_it = permit.is_some();
            drop(permit);
            (next_got_it, permits.available())
        }
    });
    assert!(next_got_it);
    assert_eq!(available, 1, "and back in the count when released");
}

/// An `Acquire` gives one permit. Polled again after it did, it panics,
/// instead of taking a second permit that nothing would give back.
#[test]
fn an_acquire_polled_again_after_its_permit_takes_no_second_one() {
    let (second, available) = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let permits = Semaphore::new(&handle, 2);
            let mut acquire = permits.acquire();
            let permit = poll_once(&mut acquire).await;
            assert!(permit.is_some(), "a free permit, at once");
            let second = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
                Pin::new(&mut acquire).poll(&mut cx).is_ready()
            }));
            (second.is_err(), permits.available())
        }
    });
    assert!(second, "the second poll panics");
    assert_eq!(available, 1, "one permit taken, one left");
}

/// A `Permit` goes back when it is dropped, however its task ends: a task
/// that panics while holding one gives it back as it unwinds.
#[test]
fn a_task_that_panics_holding_a_permit_gives_it_back() {
    let (panicked, available) = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let permits = Semaphore::new(&handle, 1);
            let held = permits.clone();
            let task = handle.spawn(async move {
                let _permit = held.acquire().await;
                panic!("it fails holding the permit");
            });
            let panicked = task.await.is_err();
            (panicked, permits.available())
        }
    });
    assert!(panicked);
    assert_eq!(available, 1, "the permit came back");
}
