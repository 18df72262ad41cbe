//! The tests of `run_bounded`, on 07's executor, whose `Stats` count the
//! most tasks alive at once.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use executor::Executor;

use super::*;

/// Runs a test on a thread of its own: whatever hangs fails within 2 s,
/// saying `never`, instead of hanging the suite.
fn bounded<T: Send + 'static>(never: &str, test: impl FnOnce() -> T + Send + 'static) -> T {
    testbed::testing::within_or(Duration::from_secs(2), never, test)
}

/// A count of jobs running now, and the most at once.
#[derive(Clone, Default)]
struct Running(Rc<Cell<(usize, usize)>>);

impl Running {
    fn start(&self) {
        let (now, most) = self.0.get();
        self.0.set((now + 1, most.max(now + 1)));
    }

    fn end(&self) {
        let (now, most) = self.0.get();
        self.0.set((now - 1, most));
    }

    fn most(&self) -> usize {
        self.0.get().1
    }
}

#[test]
fn at_most_limit_tasks_are_alive_and_the_limit_is_used() {
    let (peak, most, outputs) = bounded("twenty items, four at a time, never all finished", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let running = Running::default();
        let outputs = executor
            .block_on(run_bounded(&handle, (0..20u32).collect(), 4, |n| {
                let (handle, running) = (handle.clone(), running.clone());
                async move {
                    running.start();
                    handle.sleep(Duration::from_millis(2)).await;
                    running.end();
                    n
                }
            }))
            .expect("the executor finishes");
        (executor.stats().peak_tasks, running.most(), outputs)
    });
    assert!(
        outputs.iter().all(Result::is_ok) && outputs.len() == 20,
        "every item's output: {outputs:?}"
    );
    assert!(
        peak <= 4,
        "at most 4 tasks should be alive at once, and the executor counted {peak}: a task \
         that waits for its turn inside itself is alive all the same (wait before spawning)"
    );
    assert_eq!(
        most, 4,
        "with 20 items and a limit of 4, four jobs should run at once (the limit is there to \
         be used)"
    );
}

#[test]
fn outputs_come_back_in_item_order() {
    let outputs = bounded("ten items, three at a time, never all finished", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        executor
            .block_on(run_bounded(&handle, (0..10u64).collect(), 3, |n| {
                let handle = handle.clone();
                async move {
                    // The later the item, the sooner it ends.
                    handle.sleep(Duration::from_millis(10 - n)).await;
                    n * 2
                }
            }))
            .expect("the executor finishes")
    });
    let outputs: Vec<_> = outputs.into_iter().map(Result::ok).collect();
    assert_eq!(
        outputs,
        (0..10u64).map(|n| Some(n * 2)).collect::<Vec<_>>(),
        "the outputs should come back in the order of the items, not the order their tasks \
         ended"
    );
}

#[test]
fn a_slow_item_does_not_hold_the_others_back() {
    let outputs = bounded(
        "item 0 waits until every other item is done, with a limit of 2; the run never \
         finished: does a slow item hold back more than its own slot (batches, or one at a \
         time)?",
        || {
            let executor = Executor::new().expect("an executor");
            let handle = executor.handle();
            let done = Rc::new(Cell::new(0));
            executor
                .block_on(run_bounded(&handle, (0..8u32).collect(), 2, |n| {
                    let (handle, done) = (handle.clone(), done.clone());
                    async move {
                        if n == 0 {
                            // Ends only after the seven others, through
                            // the one other slot.
                            while done.get() < 7 {
                                handle.sleep(Duration::from_millis(1)).await;
                            }
                        } else {
                            handle.sleep(Duration::from_millis(1)).await;
                            done.set(done.get() + 1);
                        }
                        n
                    }
                }))
                .expect("the executor finishes")
        },
    );
    assert_eq!(outputs.len(), 8, "every item's output: {outputs:?}");
}

#[test]
fn a_panicking_item_fails_alone_and_gives_its_slot_back() {
    let outputs = bounded(
        "a run whose second item panics, one at a time, never finished: did the panicking \
         task's slot come back?",
        || {
            let executor = Executor::new().expect("an executor");
            let handle = executor.handle();
            executor
                .block_on(run_bounded(
                    &handle,
                    (0..4u32).collect(),
                    1,
                    |n| async move {
                        assert!(n != 1, "item 1 is broken");
                        n
                    },
                ))
                .expect("the executor finishes")
        },
    );
    let outputs: Vec<_> = outputs.into_iter().map(|o| o.ok()).collect();
    assert_eq!(
        outputs,
        [Some(0), None, Some(2), Some(3)],
        "the panicking item should get an error, and every other item its output"
    );
}

#[test]
fn waiting_for_a_free_slot_sleeps() {
    let outputs = testbed::testing::assert_quiet_within(
        Duration::from_secs(2),
        "four items of 100 ms, two at a time, never all finished",
        "a run of four 100 ms items, two at a time",
        || {
            let executor = Executor::new().expect("an executor");
            let handle = executor.handle();
            let outputs = executor
                .block_on(run_bounded(&handle, (0..4u32).collect(), 2, |n| {
                    let handle = handle.clone();
                    async move {
                        handle.sleep(Duration::from_millis(100)).await;
                        n
                    }
                }))
                .expect("the executor finishes");
            let polls = executor.stats().polls;
            assert!(
                polls <= 40,
                "busy-waiting: {polls} polls for four sleeping items, where a run woken only \
                 when a task ends takes a couple of dozen"
            );
            outputs.len()
        },
    );
    assert_eq!(outputs, 4, "every item's output");
}
