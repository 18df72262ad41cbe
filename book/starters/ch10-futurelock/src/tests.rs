//! The tests of `take_turn`: workers behind a holder that lets go, on 07's
//! executor, whose stuck check turns a futurelock into an error at once.

use std::rc::Rc;
use std::time::Instant;

use executor::{Executor, RunError};

use super::*;

/// Runs a test on a thread of its own: whatever hangs fails within 2 s,
/// saying `never`, instead of hanging the suite.
fn bounded<T: Send + 'static>(never: &str, test: impl FnOnce() -> T + Send + 'static) -> T {
    testbed::testing::within_or(Duration::from_secs(2), never, test)
}

/// A holder that takes the permit first and keeps it for `hold`, then
/// `workers` (name, tick) asking for it in that order, each working 2 ms:
/// the board's log, and how long the whole run took.
fn run(hold: Duration, workers: &[(&'static str, Duration)]) -> (Vec<String>, Duration) {
    let started = Instant::now();
    let executor = Executor::new().expect("an executor");
    let handle = executor.handle();
    let board = Rc::new(Board::new(&handle));
    let mut tasks = vec![executor.spawn({
        let board = board.clone();
        async move {
            let permit = board.lock.acquire().await;
            board.work("H", hold, permit).await;
        }
    })];
    for &(who, tick) in workers {
        let board = board.clone();
        tasks.push(executor.spawn(async move {
            take_turn(&board, who, tick, Duration::from_millis(2)).await;
        }));
    }
    let all = async {
        for task in tasks {
            task.await.expect("a worker finishes");
        }
    };
    // No timeout around it: a timer would keep the loop from seeing that
    // nothing can wake the workers. The caller bounds the run instead.
    match executor.block_on(all) {
        Ok(()) => (board.log(), started.elapsed()),
        Err(RunError::Stuck(stuck)) => panic!(
            "futurelock: {stuck}. Every worker waits for the permit, and the one it was \
             handed to is a future its task no longer polls (an `acquire` kept across a \
             `timeout` while the task awaited something else that needs the permit); the \
             log: {:?}",
            board.log()
        ),
        Err(other) => panic!("the executor failed: {other}"),
    }
}

/// The workers in the order they got the permit.
fn got_it(log: &[String]) -> Vec<&str> {
    log.iter()
        .filter_map(|line| line.strip_suffix(": got it"))
        .collect()
}

/// The ticks `who` reported waiting, if it reported.
fn ticks_of(log: &[String], who: &str) -> Option<u32> {
    log.iter().find_map(|line| {
        line.strip_prefix(&format!("{who}: waited "))?
            .strip_suffix(" ticks")?
            .parse()
            .ok()
    })
}

const TICK: Duration = Duration::from_millis(5);

#[test]
fn every_worker_finishes_after_the_holder_lets_go() {
    let (log, _) = bounded("three workers behind a holder never finished", || {
        run(
            Duration::from_millis(30),
            &[("A", TICK), ("B", TICK), ("C", TICK)],
        )
    });
    assert_eq!(
        got_it(&log),
        ["H", "A", "B", "C"],
        "every worker should get the permit once, after the holder; the log: {log:?}"
    );
}

#[test]
fn the_permit_goes_in_the_order_asked() {
    // Only B ticks while it waits: a worker that leaves the line at a
    // tick, or that holds no place in it, comes out of order.
    let slow = Duration::from_millis(500);
    let (log, _) = bounded("three workers behind a holder never finished", move || {
        run(
            Duration::from_millis(80),
            &[("A", slow), ("B", Duration::from_millis(3)), ("C", slow)],
        )
    });
    assert_eq!(
        got_it(&log),
        ["H", "A", "B", "C"],
        "the permit should go to the workers in the order they asked for it, however often \
         each one ticks while it waits (a worker that asks again after a tick goes to the \
         back of the line); the log: {log:?}"
    );
}

#[test]
fn a_permit_handed_over_between_ticks_is_taken_at_once() {
    // The holder lets go after 10 ms; A ticks every 300 ms. A worker
    // that only looks at its place in line at each tick leaves the permit
    // unused until the tick ends.
    let tick = Duration::from_millis(300);
    let (log, took) = bounded("a worker behind a holder never finished", move || {
        run(Duration::from_millis(10), &[("A", tick)])
    });
    assert!(
        took < Duration::from_millis(150),
        "the holder let go after 10 ms, and A's work takes 2 ms, but the run took {took:?}: \
         A should take the permit as soon as it is handed over, not at its next 300 ms tick \
         (keep polling the `acquire` between ticks); the log: {log:?}"
    );
}

#[test]
fn each_worker_reports_the_ticks_it_waited_with_the_permit_in_hand() {
    let (log, took) = bounded("two workers behind a holder never finished", || {
        run(Duration::from_millis(60), &[("A", TICK), ("B", TICK)])
    });
    let most = u32::try_from(took.as_millis() / TICK.as_millis()).unwrap_or(u32::MAX) + 1;
    for who in ["A", "B"] {
        let ticks = ticks_of(&log, who);
        assert!(
            ticks.is_some_and(|t| (2..=most).contains(&t)),
            "{who} waited at least 60 ms with a 5 ms tick, and should report it as \
             \"{who}: waited N ticks\", with N between 2 and {most} (one per tick that passed \
             while it waited); the log: {log:?}"
        );
        // Written with the permit: after the one before let go, just
        // before its own work.
        let at = log
            .iter()
            .position(|line| line.starts_with(&format!("{who}: waited")));
        let got = log
            .iter()
            .position(|line| *line == format!("{who}: got it"));
        assert_eq!(
            at.map(|at| at + 1),
            got,
            "{who}'s report should be written once it holds the permit, just before its \
             work; the log: {log:?}"
        );
    }
    assert!(
        !log.iter().any(|line| line.ends_with("still waiting")),
        "while waiting, a worker should await nothing that needs the permit (`report` \
         does); the log: {log:?}"
    );
}

#[test]
fn a_worker_waiting_in_line_sleeps() {
    testbed::testing::assert_quiet_within(
        Duration::from_secs(2),
        "a worker behind a holder of 200 ms never finished",
        "a worker waiting 200 ms in line, with a 50 ms tick",
        || {
            let executor = Executor::new().expect("an executor");
            let handle = executor.handle();
            let board = Rc::new(Board::new(&handle));
            let holder = executor.spawn({
                let board = board.clone();
                async move {
                    let permit = board.lock.acquire().await;
                    board.work("H", Duration::from_millis(200), permit).await;
                }
            });
            let polls = testbed::testing::Polls::new();
            let result = executor.block_on(handle.timeout(
                Duration::from_secs(1),
                polls.count(take_turn(
                    &board,
                    "A",
                    Duration::from_millis(50),
                    Duration::from_millis(2),
                )),
            ));
            assert!(
                matches!(result, Ok(Ok(()))),
                "the worker should get the permit and finish: {result:?}"
            );
            // One poll per tick, one when the permit comes, one when the
            // work's sleep ends, and the first.
            polls.assert_at_most(10, "a worker waiting 200 ms with a 50 ms tick");
            drop(holder);
        },
    );
}
