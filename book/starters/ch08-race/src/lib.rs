//! Chapter 8, exercise 2: `race`, and what it does to the loser.
//!
//! [`race`] polls two futures and returns the output of the first one
//! ready. The other is *dropped*, wherever it stands: that is the only way
//! to stop a future. Race a request against a timer and you have a
//! timeout; race two requests for the same answer over two connections
//! ("hedging") and you have a loser that sent its line and never read its
//! reply. Its connection is poisoned (the `InFlight` guard of its request
//! says so), and the tests show why it must be closed: asked for another
//! item, it answers with the first one's late reply.
//!
//! [`race`] pins the two futures; write the poll.
//!
//! A five-second sleep against a future that is ready at once: the sleep is
//! dropped, and nobody waits five seconds:
//!
//! ```
//! use std::time::Duration;
//! use ch08_race::{Either, race};
//! use executor::Executor;
//!
//! let executor = Executor::new()?;
//! let sleep = executor.handle().sleep(Duration::from_secs(5));
//! let winner = executor.block_on(race(sleep, async { "at once" }))?;
//! assert_eq!(winner, Either::Right("at once"), "the future ready at once wins");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch08-race");

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

/// One of two values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Either<A, B> {
    /// The first future's.
    Left(A),
    /// The second future's.
    Right(B),
}

// ANCHOR: exercise
/// The output of whichever of `a` and `b` is ready first (`a` on a tie).
/// The other is dropped, unfinished, when this returns.
pub async fn race<A: Future, B: Future>(a: A, b: B) -> Either<A::Output, B::Output> {
    let mut a = pin!(a);
    let mut b = pin!(b);
    poll_fn(|cx| {
        // TODO: which future gets the first chance on each poll, and how will the task hear of `b` while `a` is pending?
        todo!("which future gets the first chance on each poll, and how will the task hear of `b` while `a` is pending?")
    })
    .await
}
// ANCHOR_END: exercise

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;
    use std::time::Duration;

    use executor::{AsyncConn, Executor, request};
    use testbed::latency::LatencyModel;
    use testbed::protocol::Phases;
    use testbed::server::{ServerConfig, SlowServer};
    use testbed::workload::items;

    use super::*;

    fn server(latency: Duration) -> SlowServer {
        SlowServer::spawn(ServerConfig {
            latency: LatencyModel::Fixed(latency),
            ..ServerConfig::default()
        })
        .expect("the server starts")
    }

    /// Sets its flag when dropped.
    struct Dropped(Rc<Cell<bool>>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }

    #[test]
    fn the_first_ready_wins_and_the_loser_is_dropped() {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let dropped = Rc::new(Cell::new(false));
        let flag = Dropped(dropped.clone());
        let (slow, quick) = (handle.clone(), handle.clone());
        let winner = executor
            .block_on(async {
                let winner = race(
                    async move {
                        let _flag = flag;
                        // Long enough never to win against 1 ms, short
                        // enough that a race which ignores `b` fails soon.
                        slow.sleep(Duration::from_secs(5)).await;
                        "slow"
                    },
                    quick.sleep(Duration::from_millis(1)),
                )
                .await;
                (winner, dropped.get())
            })
            .expect("the executor finishes");
        assert_eq!(
            winner,
            (Either::Right(()), true),
            "the quicker future should win, and the loser be dropped by the time race returns"
        );
    }

    #[test]
    fn a_tie_goes_to_the_left_and_the_right_is_never_polled() {
        let executor = Executor::new().expect("an executor");
        let winner = executor.block_on(race(async { 1 }, async {
            panic!("polled, though the left was ready");
        }));
        assert_eq!(
            winner.ok(),
            Some(Either::Left(1)),
            "a tie should go to `a`, and `b` not be polled at all"
        );
    }

    /// The same item's request to a slow and a quick server: the quick one
    /// wins; the slow one's request is dropped after its line was sent, so
    /// its connection is poisoned. Reused anyway for the next item, it
    /// answers with the first item's late reply.
    #[test]
    fn the_losers_connection_is_poisoned_and_answers_late() {
        let (slow, quick) = (
            server(Duration::from_millis(100)),
            server(Duration::from_millis(1)),
        );
        let (slow_addr, quick_addr) = (slow.addr(), quick.addr());
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let work = items(2, 5);
        let (winner, poisoned, reusable, reused) = executor
            .block_on(async {
                let mut slow = AsyncConn::connect(&handle, slow_addr)
                    .await
                    .expect("connects");
                let mut quick = AsyncConn::connect(&handle, quick_addr)
                    .await
                    .expect("connects");
                let winner = race(
                    request(&mut slow, &work[0], Phases::One),
                    request(&mut quick, &work[0], Phases::One),
                )
                .await;
                let (poisoned, reusable) = (slow.is_poisoned(), quick.is_reusable());
                // What the poison is for: the next item's request, on the
                // loser's connection, reads the first item's reply.
                let reused = handle
                    .timeout(
                        Duration::from_secs(5),
                        request(&mut slow, &work[1], Phases::One),
                    )
                    .await;
                (winner, poisoned, reusable, reused)
            })
            .expect("the executor finishes");
        assert_eq!(
            winner,
            Either::Right(Ok(work[0].expected_result())),
            "the request to the quick server should win the race"
        );
        assert!(
            poisoned && reusable,
            "the loser's connection should be poisoned (its request was dropped half-way), the winner's reusable"
        );
        assert_eq!(
            reused,
            Ok(Ok(work[0].expected_result())),
            "item 0's reply, read as item 1's"
        );
    }

    #[test]
    fn a_race_waiting_for_a_timer_sleeps() {
        let winner = testbed::testing::assert_quiet_within(
            Duration::from_secs(2),
            "a race of a 200 ms and a 1 s sleep never finished: was the task woken by the timer?",
            "a race waiting 200 ms for a timer",
            || {
                let executor = Executor::new().expect("an executor");
                let handle = executor.handle();
                let polls = testbed::testing::Polls::new();
                let winner = executor.block_on(polls.count(race(
                    handle.sleep(Duration::from_millis(200)),
                    handle.sleep(Duration::from_secs(1)),
                )));
                // The first poll, and one when the quicker timer fires.
                polls.assert_at_most(5, "a race of two sleeps");
                winner.ok()
            },
        );
        assert_eq!(
            winner,
            Some(Either::Left(())),
            "the 200 ms sleep should win against the 1 s one"
        );
    }

    #[test]
    fn every_tie_goes_to_the_left_race_after_race() {
        let executor = Executor::new().expect("an executor");
        for round in 0..10 {
            let winner = executor.block_on(race(async { "a" }, async { "b" }));
            assert_eq!(
                winner.ok(),
                Some(Either::Left("a")),
                "race {round} of 10: a tie should go to `a`, every time"
            );
        }
    }
}
