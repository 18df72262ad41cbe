//! The tests of `UntilAllowed`: what a wait costs (polls, CPU, the other
//! tasks' timers), and the slots of callers arriving at generated times,
//! against the limiter's promise.

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;

use executor::Executor;
use proptest::prelude::*;

use super::*;

/// Runs a test on a thread of its own: whatever hangs fails within
/// `limit`, saying `never`, instead of hanging the suite.
fn bounded<T: Send + 'static>(
    limit: Duration,
    never: &str,
    test: impl FnOnce() -> T + Send + 'static,
) -> T {
    testbed::testing::within_or(limit, never, test)
}

/// What one caller saw: when it asked, when its first poll returned,
/// its slot, and when it was let through.
#[derive(Debug, Clone, Copy)]
struct Pass {
    asked: Instant,
    first_poll_done: Instant,
    slot: Instant,
    through: Instant,
}

/// One caller: waits until `at`, then asks the limiter, polling its
/// future once by hand to know when the first poll (the reservation)
/// happened. `order` records the order of the first polls.
async fn caller(handle: Handle, limiter: Rc<Limiter>, at: Instant, order: Rc<RefCell<Vec<Pass>>>) {
    handle.sleep_until(at).await;
    let mut wait = limiter.until_allowed();
    let asked = Instant::now();
    let first = poll_fn(|cx| Poll::Ready(Pin::new(&mut wait).poll(cx))).await;
    let first_poll_done = Instant::now();
    let at = order.borrow().len();
    order.borrow_mut().push(Pass {
        asked,
        first_poll_done,
        slot: asked,
        through: asked,
    });
    let slot = match first {
        Poll::Ready(slot) => slot,
        Poll::Pending => wait.await,
    };
    let pass = &mut order.borrow_mut()[at];
    (pass.slot, pass.through) = (slot, Instant::now());
}

/// Callers arriving `gaps` apart (in ms) at a limiter of `interval`:
/// every caller's pass, in the order of their first polls, or `None` if
/// some caller was never let through within a second.
fn run_callers(interval: Duration, gaps: &[u64]) -> Option<Vec<Pass>> {
    let executor = Executor::new().expect("an executor");
    let handle = executor.handle();
    let limiter = Rc::new(Limiter::new(&handle, interval));
    let order = Rc::new(RefCell::new(Vec::new()));
    let mut at = Instant::now() + Duration::from_millis(2);
    let callers: Vec<_> = gaps
        .iter()
        .map(|gap| {
            at += Duration::from_millis(*gap);
            executor.spawn(caller(handle.clone(), limiter.clone(), at, order.clone()))
        })
        .collect();
    let all = async {
        for caller in callers {
            caller.await.expect("a caller finishes");
        }
    };
    let finished = executor
        .block_on(handle.timeout(Duration::from_secs(1), all))
        .expect("the executor finishes");
    finished.ok().map(|()| order.borrow().clone())
}

#[test]
fn slots_keep_the_limiters_promise() {
    bounded(
        Duration::from_secs(10),
        "the property test of the slots never finished",
        || {
            let mut runner =
                proptest::test_runner::TestRunner::new(testbed::testing::proptest_config(12));
            let verdict = runner.run(
                &(1u64..=4, proptest::collection::vec(0u64..=4, 1..=5)),
                |(interval, gaps)| {
                    let interval = Duration::from_millis(interval);
                    let passes = run_callers(interval, &gaps);
                    prop_assert!(
                        passes.is_some(),
                        "a caller was never let through within a second (interval {:?}, \
                         arrivals {:?} ms apart)",
                        interval,
                        gaps
                    );
                    let passes = passes.unwrap_or_default();
                    let mut before: Option<Instant> = None;
                    for (n, pass) in passes.iter().enumerate() {
                        // The model: the later of its first poll and the
                        // slot before plus the interval.
                        let follows = before.map(|slot| slot + interval);
                        let at_its_poll =
                            pass.asked <= pass.slot && pass.slot <= pass.first_poll_done;
                        prop_assert!(
                            Some(pass.slot) == follows
                                || (at_its_poll && follows.is_none_or(|f| f <= pass.slot)),
                            "caller {} (in the order of first polls) got its slot {:?} after \
                             its first poll, where the limiter promises the later of that poll \
                             and the slot before plus {:?} (slots should go out once each, in \
                             the order of the first polls)",
                            n,
                            pass.slot.saturating_duration_since(pass.first_poll_done),
                            interval
                        );
                        prop_assert!(
                            pass.through >= pass.slot,
                            "caller {} was let through {:?} before its slot",
                            n,
                            pass.slot - pass.through
                        );
                        before = Some(pass.slot);
                    }
                    Ok(())
                },
            );
            if let Err(failure) = verdict {
                panic!("{failure}");
            }
        },
    );
}

#[test]
fn a_caller_waiting_for_its_slot_sleeps() {
    testbed::testing::assert_quiet_within(
        Duration::from_secs(2),
        "a caller waiting 200 ms for its slot was never let through",
        "a caller waiting 200 ms for its slot",
        || {
            let executor = Executor::new().expect("an executor");
            let limiter = Limiter::new(&executor.handle(), Duration::from_millis(200));
            let (first, second) = (
                testbed::testing::Polls::new(),
                testbed::testing::Polls::new(),
            );
            let slots = executor
                .block_on(async {
                    let a = first.count(limiter.until_allowed()).await;
                    let b = second.count(limiter.until_allowed()).await;
                    (a, b)
                })
                .expect("the executor finishes");
            first.assert_at_most(1, "the first caller, whose slot is at once,");
            // The first poll, and one when the timer fires.
            second.assert_at_most(3, "a caller waiting 200 ms for its slot");
            assert!(
                slots.1 - slots.0 >= Duration::from_millis(200),
                "the second slot should be an interval after the first"
            );
        },
    );
}

#[test]
fn other_tasks_run_while_a_caller_waits() {
    const TICK: Duration = Duration::from_millis(5);
    let worst = bounded(
        Duration::from_secs(2),
        "a caller waiting 150 ms, or a 5 ms ticker beside it, never finished",
        || {
            let executor = Executor::new().expect("an executor");
            let handle = executor.handle();
            let ticker = handle.spawn({
                let handle = handle.clone();
                async move {
                    let (mut next, mut worst) = (Instant::now(), Duration::ZERO);
                    for _ in 0..40 {
                        next += TICK;
                        handle.sleep_until(next).await;
                        worst = worst.max(next.elapsed());
                    }
                    worst
                }
            });
            let limiter = Limiter::new(&handle, Duration::from_millis(150));
            executor
                .block_on(async {
                    limiter.until_allowed().await;
                    limiter.until_allowed().await;
                    ticker.await.expect("the ticker finishes")
                })
                .expect("the executor finishes")
        },
    );
    assert!(
        worst < Duration::from_millis(60),
        "a 5 ms timer fired {worst:?} late while a caller waited 150 ms for its slot: the wait \
         held the loop's thread"
    );
}
