//! The tests of `spawn_blocking`: on the executor (results, timers that
//! stay on time, a loop that sleeps, panics), and by hand, with wakers
//! that record what they saw, for the order of things inside the slot.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, TryLockError};
use std::task::Wake;
use std::time::{Duration, Instant};

use executor::Executor;

use super::*;

/// Runs a test on a thread of its own: a task that is never woken fails
/// within 2 s, saying `never`, instead of hanging the suite.
fn bounded<T: Send + 'static>(never: &str, test: impl FnOnce() -> T + Send + 'static) -> T {
    testbed::testing::within_or(Duration::from_secs(2), never, test)
}

/// A waker that counts its wakes and notes, at each, what the slot held:
/// the result, nothing yet, or still locked by whoever called it.
struct Recorder {
    slot: Arc<Slot<u32>>,
    wakes: AtomicUsize,
    saw: Mutex<Vec<&'static str>>,
}

impl Recorder {
    fn new(blocking: &Blocking<u32>) -> Arc<Recorder> {
        Arc::new(Recorder {
            slot: blocking.slot.clone(),
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
        let seen = match self.slot.try_lock() {
            Ok(slot) if slot.0.is_some() => "the result",
            Ok(_) => "no result yet",
            Err(TryLockError::WouldBlock) => "the slot still locked",
            Err(TryLockError::Poisoned(_)) => "a poisoned slot",
        };
        self.saw.lock().expect("the record").push(seen);
    }
}

fn poll_with(blocking: &mut Blocking<u32>, waker: &Waker) -> Poll<Result<u32, BlockingError>> {
    Pin::new(blocking).poll(&mut Context::from_waker(waker))
}

#[test]
fn the_task_is_woken_once_after_the_result_is_in_and_the_lock_is_free() {
    bounded(
        "a poll by hand never returned (does it wait inside poll instead of returning Pending?)",
        || {
            let (worker, mut blocking) = pair();
            let recorder = Recorder::new(&blocking);
            let waker = Waker::from(recorder.clone());
            assert!(
                poll_with(&mut blocking, &waker).is_pending(),
                "no result yet: the first poll should be Pending"
            );
            worker.run(|| 7);
            assert_eq!(
                recorder.saw(),
                ["the result"],
                "the waiting task should be woken once, when the result is in the slot and the slot's \
             lock is released (woken earlier, it finds nothing; woken under the lock, a task polled \
             at once could not look)"
            );
            assert_eq!(
                poll_with(&mut blocking, &waker),
                Poll::Ready(Ok(7)),
                "polled after the wake, the future should give the work's result"
            );
        },
    );
}

#[test]
fn a_result_that_comes_while_the_task_looks_still_wakes_it() {
    bounded("a poll by hand, or the worker, never returned", || {
        let (worker, mut blocking) = pair();
        // The worker delivers at the moment the poll clones its waker: if
        // the poll let go of the slot's lock between its look and leaving
        // the waker, the result lands in between.
        let racing =
            testbed::testing::RacingWaker::new(Duration::from_millis(20), move || worker.run(|| 7));
        let polled = poll_with(&mut blocking, &racing.waker());
        racing.join();
        match polled {
            Poll::Ready(result) => assert_eq!(result, Ok(7), "the work's result"),
            Poll::Pending => assert_eq!(
                racing.wakes(),
                1,
                "the result came while the poll was leaving its waker, and the poll returned \
                 Pending: the worker should have woken it once. Look for the result and leave the \
                 waker under one lock, or the result can land in between and wake nobody"
            ),
        }
    });
}

#[test]
fn the_latest_waker_is_the_one_woken() {
    bounded(
        "a poll by hand never returned (does it wait inside poll instead of returning Pending?)",
        || {
            let (worker, mut blocking) = pair();
            let (first, second) = (Recorder::new(&blocking), Recorder::new(&blocking));
            assert!(
                poll_with(&mut blocking, &Waker::from(first.clone())).is_pending(),
                "no result yet: the first poll should be Pending"
            );
            // The future moved: into a `race`, a `timeout`, another task.
            assert!(
                poll_with(&mut blocking, &Waker::from(second.clone())).is_pending(),
                "no result yet: the second poll should be Pending"
            );
            worker.run(|| 7);
            assert_eq!(
                (first.wakes(), second.wakes()),
                (0, 1),
                "(wakes of the first waker, of the second): only the waker of the latest poll should be \
             woken, once; the first poll's task no longer waits for this future"
            );
        },
    );
}

#[test]
fn work_done_before_the_first_poll_is_ready_at_once() {
    bounded("a poll by hand never returned", || {
        let (worker, mut blocking) = pair();
        worker.run(|| 7);
        let recorder = Recorder::new(&blocking);
        assert_eq!(
            poll_with(&mut blocking, &Waker::from(recorder.clone())),
            Poll::Ready(Ok(7)),
            "the result came before anyone asked: the first poll should find it (nobody will wake \
             this task again)"
        );
    });
}

#[test]
fn a_dropped_blocking_does_not_panic_the_worker() {
    bounded("a poll by hand, or the worker, never returned", || {
        for polled in [false, true] {
            let (worker, mut blocking) = pair();
            if polled {
                assert!(
                    poll_with(&mut blocking, Waker::noop()).is_pending(),
                    "no result yet: the poll should be Pending"
                );
            }
            drop(blocking);
            let worker = std::thread::spawn(move || worker.run(|| 7));
            assert!(
                worker.join().is_ok(),
                "the worker's thread panicked delivering a result nobody waits for (the Blocking \
                 was dropped {} being polled): a task may give up on the work, and the worker \
                 must then just drop the result",
                if polled { "after" } else { "without" }
            );
        }
    });
}

#[test]
fn a_panic_in_the_work_comes_back_as_an_error() {
    let result = bounded("a panic in the work never came back to the task", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        executor
            .block_on(handle.timeout(
                Duration::from_secs(1),
                spawn_blocking(|| -> u32 { panic!("the disk is on fire") }),
            ))
            .expect("the executor finishes")
    });
    assert_eq!(
        result,
        Ok(Err(BlockingError::Panicked("the disk is on fire".into()))),
        "a panic in the work should come back to the waiting task as Panicked, with its \
         message (Err(Elapsed) means the task was never woken: the panic took the result \
         with it)"
    );
}

#[test]
fn several_jobs_run_at_once() {
    let results = bounded(
        "three jobs that wait for each other never finished: do they all run at once, each on \
         a thread of its own, while the task waits without blocking the loop?",
        || {
            let executor = Executor::new().expect("an executor");
            let barrier = Arc::new(Barrier::new(3));
            let jobs: Vec<_> = (0..3u32)
                .map(|n| {
                    let barrier = barrier.clone();
                    spawn_blocking(move || {
                        barrier.wait();
                        slow_hash(&n.to_le_bytes(), 100)
                    })
                })
                .collect();
            executor
                .block_on(async {
                    let mut results = Vec::new();
                    for job in jobs {
                        results.push(job.await);
                    }
                    results
                })
                .expect("the executor finishes")
        },
    );
    let expected: Vec<_> = (0..3u32)
        .map(|n| Ok(slow_hash(&n.to_le_bytes(), 100)))
        .collect();
    assert_eq!(
        results, expected,
        "each job's own result, in the order they were awaited"
    );
}

#[test]
fn timers_fire_on_time_while_the_work_runs() {
    const TICK: Duration = Duration::from_millis(5);
    let (result, worst) = bounded("the work or the 5 ms ticker never finished", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let ticker = handle.spawn({
            let handle = handle.clone();
            async move {
                let (mut next, mut worst) = (Instant::now(), Duration::ZERO);
                for _ in 0..50 {
                    next += TICK;
                    handle.sleep_until(next).await;
                    worst = worst.max(next.elapsed());
                }
                worst
            }
        });
        executor
            .block_on(async {
                // A blocking read, say: 250 ms of a thread that waits.
                let result = spawn_blocking(|| {
                    std::thread::sleep(Duration::from_millis(250));
                    7
                })
                .await;
                (result, ticker.await.expect("the ticker finishes"))
            })
            .expect("the executor finishes")
    });
    assert_eq!(result, Ok(7), "the work's result");
    assert!(
        worst < Duration::from_millis(100),
        "a 5 ms timer fired {worst:?} late while 250 ms of blocking work ran: the work (or a \
         wait for it) held the loop's thread, and every timer waited behind it"
    );
}

#[test]
fn a_task_waiting_for_the_work_sleeps() {
    let result = testbed::testing::assert_quiet_within(
        Duration::from_secs(2),
        "200 ms of work never came back to the task",
        "a task waiting 200 ms for blocking work",
        || {
            let executor = Executor::new().expect("an executor");
            let polls = testbed::testing::Polls::new();
            let result = executor
                .block_on(polls.count(spawn_blocking(|| {
                    std::thread::sleep(Duration::from_millis(200));
                    7
                })))
                .expect("the executor finishes");
            // The first poll, and one after the worker's wake.
            polls.assert_at_most(3, "a wait for 200 ms of blocking work");
            result
        },
    );
    assert_eq!(result, Ok(7), "the work's result");
}
