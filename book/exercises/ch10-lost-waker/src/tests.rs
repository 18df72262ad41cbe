//! The tests of `Event`: on the executor, whose stuck check turns a lost
//! wake-up into an error at once, and by hand, with wakers that record
//! how often they were called and what they saw.

use std::sync::TryLockError;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Wake;
use std::time::Duration;

use executor::{Executor, RunError};

use super::*;

/// Runs a test on a thread of its own: whatever hangs fails within 2 s,
/// saying `never`, instead of hanging the suite.
fn bounded<T: Send + 'static>(never: &str, test: impl FnOnce() -> T + Send + 'static) -> T {
    testbed::testing::within_or(Duration::from_secs(2), never, test)
}

/// `block_on`, with a lost wake-up said in words: the loop saw a task
/// wait with no waker held anywhere (or only a stale one).
fn run<F: Future>(executor: &Executor, future: F, what: &str) -> F::Output {
    match executor.block_on(future) {
        Ok(output) => output,
        Err(RunError::Stuck(stuck)) => panic!(
            "lost wake-up: {what} never ended, and the loop found out why: {stuck}. A `Wait` \
             that returns Pending must leave the waker of its latest poll where `set` will \
             find it"
        ),
        Err(other) => panic!("the executor failed: {other}"),
    }
}

/// A waker that counts its wakes and notes what each one saw: the event
/// set, not set yet, or its lock still held by whoever woke it.
struct Recorder {
    event: Event,
    wakes: AtomicUsize,
    saw: Mutex<Vec<&'static str>>,
}

impl Recorder {
    fn new(event: &Event) -> Arc<Recorder> {
        Arc::new(Recorder {
            event: event.clone(),
            wakes: AtomicUsize::new(0),
            saw: Mutex::new(Vec::new()),
        })
    }

    fn wakes(&self) -> usize {
        self.wakes.load(Ordering::SeqCst)
    }

    fn saw(&self) -> Vec<&'static str> {
        self.saw.lock().expect("the record").clone()
    }
}

impl Wake for Recorder {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        let seen = match self.event.state.try_lock() {
            Ok(state) if state.set => "the event set",
            Ok(_) => "the event not set yet",
            Err(TryLockError::WouldBlock) => "the event's lock still held",
            Err(TryLockError::Poisoned(_)) => "a poisoned lock",
        };
        self.saw.lock().expect("the record").push(seen);
    }
}

fn poll_with(wait: &mut Wait, recorder: &Arc<Recorder>) -> Poll<()> {
    let waker = Waker::from(recorder.clone());
    Pin::new(wait).poll(&mut Context::from_waker(&waker))
}

#[test]
fn set_from_another_task_wakes_the_waiter() {
    bounded(
        "a wait for an event set by another task never ended",
        || {
            let executor = Executor::new().expect("an executor");
            let handle = executor.handle();
            let event = Event::new();
            executor.spawn({
                let (event, handle) = (event.clone(), handle.clone());
                async move {
                    handle.sleep(Duration::from_millis(5)).await;
                    event.set();
                }
            });
            run(
                &executor,
                event.wait(),
                "a wait for an event set by another task",
            );
            assert_eq!(
                event.waiting(),
                0,
                "set should let go of every waker it woke"
            );
        },
    );
}

#[test]
fn set_from_another_thread_wakes_a_sleeping_loop() {
    testbed::testing::assert_quiet_within(
        Duration::from_secs(2),
        "a wait for an event set by another thread after 200 ms never ended",
        "a task waiting 200 ms for an event",
        || {
            let executor = Executor::new().expect("an executor");
            let event = Event::new();
            let setter = std::thread::spawn({
                let event = event.clone();
                move || {
                    std::thread::sleep(Duration::from_millis(200));
                    event.set();
                }
            });
            let polls = testbed::testing::Polls::new();
            run(
                &executor,
                polls.count(event.wait()),
                "a wait for an event set by another thread",
            );
            // The first poll, and one after `set`'s wake.
            polls.assert_at_most(3, "a wait for an event set after 200 ms");
            setter.join().expect("the setter's thread");
        },
    );
}

#[test]
fn set_before_the_wait_is_ready_at_once() {
    bounded("a poll by hand never returned", || {
        let event = Event::new();
        event.set();
        let mut wait = event.wait();
        assert_eq!(
            poll_with(&mut wait, &Recorder::new(&event)),
            Poll::Ready(()),
            "an event already set should be ready on the first poll"
        );
        assert_eq!(
            event.waiting(),
            0,
            "a wait that was ready at once should leave no waker"
        );
    });
}

#[test]
fn set_while_the_wait_looks_still_wakes_it() {
    bounded("a poll by hand, or the set, never returned", || {
        let event = Event::new();
        let setter = event.clone();
        // The event is set at the moment the poll clones its waker: if the
        // poll let go of the lock between its look at the flag and leaving
        // the waker, the set lands in between.
        let racing =
            testbed::testing::RacingWaker::new(Duration::from_millis(20), move || setter.set());
        let mut wait = event.wait();
        let polled = Pin::new(&mut wait).poll(&mut Context::from_waker(&racing.waker()));
        racing.join();
        if polled.is_pending() {
            assert_eq!(
                racing.wakes(),
                1,
                "the event was set while the poll was leaving its waker, and the poll returned \
                 Pending: `set` should have woken it once. Look at the flag and leave the waker \
                 under one lock, or the set can land in between and wake nobody"
            );
        }
    });
}

#[test]
fn polled_with_two_wakers_in_turn_the_second_is_woken() {
    bounded("a poll by hand, or set, never returned", || {
        let event = Event::new();
        let mut wait = event.wait();
        let (first, second) = (Recorder::new(&event), Recorder::new(&event));
        assert!(poll_with(&mut wait, &first).is_pending(), "not set yet");
        assert!(poll_with(&mut wait, &second).is_pending(), "not set yet");
        assert_eq!(
            event.waiting(),
            1,
            "one Wait polled twice should hold one waker, the latest, not one per poll"
        );
        event.set();
        assert_eq!(
            (first.wakes(), second.wakes()),
            (0, 1),
            "(wakes of the first poll's waker, of the second's): only the latest poll's waker \
             should be woken, once; the first poll's task no longer waits for this Wait"
        );
        assert_eq!(
            second.saw(),
            ["the event set"],
            "the waiter should be woken after the event is set and its lock released (a task \
             woken on another thread polls at once: it must find the flag, and the lock free)"
        );
        assert_eq!(poll_with(&mut wait, &second), Poll::Ready(()), "set now");
    });
}

#[test]
fn a_wait_moved_to_another_task_is_woken_there() {
    bounded("a Wait handed from one task to another never ended", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let event = Event::new();
        // A task polls the Wait once, then hands it over and ends: it
        // returns the future on purpose.
        #[allow(clippy::async_yields_async)]
        let first = executor.spawn({
            let event = event.clone();
            async move {
                let mut wait = event.wait();
                std::future::poll_fn(|cx| {
                    assert!(Pin::new(&mut wait).poll(cx).is_pending(), "not set yet");
                    Poll::Ready(())
                })
                .await;
                wait
            }
        });
        run(
            &executor,
            async {
                let wait = first.await.expect("the first task hands its Wait over");
                handle.spawn({
                    let (event, handle) = (event.clone(), handle.clone());
                    async move {
                        handle.sleep(Duration::from_millis(5)).await;
                        event.set();
                    }
                });
                wait.await;
            },
            "a Wait polled by one task, then awaited by another",
        );
    });
}

#[test]
fn many_waiters_are_each_woken_once() {
    bounded("a poll by hand, or set, never returned", || {
        let event = Event::new();
        let waiters: Vec<_> = (0..10)
            .map(|_| {
                let (mut wait, recorder) = (event.wait(), Recorder::new(&event));
                assert!(poll_with(&mut wait, &recorder).is_pending(), "not set yet");
                (wait, recorder)
            })
            .collect();
        assert_eq!(event.waiting(), 10, "one waker per waiting Wait");
        event.set();
        event.set();
        let wakes: Vec<usize> = waiters.iter().map(|(_, r)| r.wakes()).collect();
        assert_eq!(
            wakes, [1; 10],
            "every waiter should be woken, once, however often the event is set"
        );
        assert_eq!(
            event.waiting(),
            0,
            "set should let go of every waker it woke"
        );
    });
    let done = bounded("fifty tasks waiting for one event never all ended", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let event = Event::new();
        let tasks: Vec<_> = (0..50).map(|_| executor.spawn(event.wait())).collect();
        run(
            &executor,
            async {
                handle.sleep(Duration::from_millis(5)).await;
                event.set();
                let mut done = 0;
                for task in tasks {
                    task.await.expect("a waiting task");
                    done += 1;
                }
                done
            },
            "fifty tasks waiting for one event",
        )
    });
    assert_eq!(done, 50, "all fifty tasks should end");
}

#[test]
fn a_dropped_wait_leaves_no_waker() {
    bounded("a poll by hand never returned", || {
        let event = Event::new();
        let mut wait = event.wait();
        let recorder = Recorder::new(&event);
        assert!(poll_with(&mut wait, &recorder).is_pending(), "not set yet");
        assert!(
            poll_with(&mut wait, &Recorder::new(&event)).is_pending(),
            "not set yet"
        );
        drop(wait);
        assert_eq!(
            event.waiting(),
            0,
            "a Wait dropped while waiting (a timeout fired) should leave no waker behind: its \
             Drop removes the entry of its id"
        );
        event.set();
        assert_eq!(recorder.wakes(), 0, "a dropped Wait's task is not woken");
    });
}
