//! Chapter 8, exercise 1: `join`, two futures at once in one task.
//!
//! `a.await; b.await` runs two futures one after the other: `b` does not
//! even start until `a` is done, so two requests take two service times.
//! [`join`] polls both from a single future: whenever the task is woken,
//! it polls each one that has not finished yet, and it is ready when both
//! are. Both requests are then in flight together, over their two
//! connections, in one task.
//!
//! One rule: a future that has returned `Ready` must not be polled again
//! (many panic if it is; the executor's `JoinHandle` does). So `join` keeps
//! each output as it comes, and polls only the future still running.
//!
//! [`join`] pins the two futures and keeps their outputs; write the poll.
//!
//! The right-hand future is ready at once; its output waits for the left's:
//!
//! ```
//! use std::time::Duration;
//! use ch08_join::join;
//! use executor::Executor;
//!
//! let executor = Executor::new()?;
//! let handle = executor.handle();
//! let slept = async {
//!     handle.sleep(Duration::from_millis(2)).await;
//!     "slept"
//! };
//! let both = executor.block_on(join(slept, async { 42 }))?;
//! assert_eq!(both, ("slept", 42), "both outputs, in argument order");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch08-join");

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

// ANCHOR: exercise
/// Runs `a` and `b` at once; ready with both outputs, in argument order.
pub async fn join<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let mut a = pin!(a);
    let mut b = pin!(b);
    let mut a_output: Option<A::Output> = None;
    let mut b_output: Option<B::Output> = None;
    poll_fn(|cx| {
        // EXERCISE-BEGIN: after a wake-up, which of the two futures may you poll, and where does an output wait for the other one?
        if a_output.is_none()
            && let Poll::Ready(output) = a.as_mut().poll(cx)
        {
            a_output = Some(output);
        }
        if b_output.is_none()
            && let Poll::Ready(output) = b.as_mut().poll(cx)
        {
            b_output = Some(output);
        }
        match (a_output.take(), b_output.take()) {
            (Some(a), Some(b)) => Poll::Ready((a, b)),
            (a, b) => {
                // Not both yet: keep what came, and wait to be woken.
                (a_output, b_output) = (a, b);
                Poll::Pending
            }
        }
        // EXERCISE-END
    })
    .await
}
// ANCHOR_END: exercise

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::net::{TcpListener, TcpStream};
    use std::time::Duration;

    use executor::{AsyncConn, Executor, request};
    use testbed::protocol::{Phases, ResultHash};
    use testbed::workload::items;

    use super::*;

    /// A peer that answers nobody until it has a request on each of two
    /// connections: only two requests in flight together get answers.
    fn barrier_peer() -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a listener");
        let addr = listener.local_addr().expect("an address");
        std::thread::spawn(move || {
            let mut readers: Vec<BufReader<TcpStream>> = Vec::new();
            for _ in 0..2 {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                readers.push(BufReader::new(stream));
            }
            let mut lines = Vec::new();
            for reader in &mut readers {
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    return;
                }
                lines.push(line);
            }
            for (reader, line) in readers.iter_mut().zip(lines) {
                // `GET <id> <payload>`: answer with the hash of the two.
                let words: Vec<&str> = line.split_whitespace().collect();
                let (Some(id), Some(payload)) = (words.get(1), words.get(2)) else {
                    return;
                };
                let hash = ResultHash::of(
                    testbed::protocol::ItemId(id.parse().unwrap_or_default()),
                    &testbed::protocol::Payload::new(*payload).expect("a valid payload"),
                );
                let _ = writeln!(reader.get_mut(), "200 {hash}");
            }
        });
        addr
    }

    #[test]
    fn both_requests_are_in_flight_at_once() {
        let addr = barrier_peer();
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let work = items(2, 1);
        let outcomes = executor
            .block_on(async {
                let mut first = AsyncConn::connect(&handle, addr).await.expect("connects");
                let mut second = AsyncConn::connect(&handle, addr).await.expect("connects");
                let both = join(
                    request(&mut first, &work[0], Phases::One),
                    request(&mut second, &work[1], Phases::One),
                );
                // One after the other, the first would wait forever.
                handle.timeout(Duration::from_secs(2), both).await
            })
            .expect("the executor finishes");
        let (a, b) = outcomes.expect(
            "the peer answers only when both requests are in flight: join should poll both at once",
        );
        assert_eq!(
            (a, b),
            (Ok(work[0].expected_result()), Ok(work[1].expected_result())),
            "each request should get its own answer, in argument order"
        );
    }

    /// A `JoinHandle` panics if polled after it returned: a `join` that
    /// polls the quick task again, while waiting for the slow one, fails.
    #[test]
    fn a_finished_future_is_not_polled_again() {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let sleeper = handle.clone();
        let quick = handle.spawn(async { 1 });
        let slow = handle.spawn(async move {
            sleeper.sleep(Duration::from_millis(5)).await;
            2
        });
        let (a, b) = executor
            .block_on(join(quick, slow))
            .expect("the executor finishes");
        assert_eq!(
            (a, b),
            (Ok(1), Ok(2)),
            "both tasks' outputs should come back, each polled until ready and never after"
        );
    }

    #[test]
    fn outputs_come_back_in_argument_order() {
        let executor = Executor::new().expect("an executor");
        let both = executor.block_on(join(async { 1 }, async { "two" }));
        assert_eq!(
            both.ok(),
            Some((1, "two")),
            "join should be ready with both outputs, in argument order, as soon as both are ready"
        );
    }

    #[test]
    fn a_join_waiting_for_two_timers_sleeps() {
        let both = testbed::testing::assert_quiet_within(
            Duration::from_secs(2),
            "a join of a 200 ms and a 100 ms sleep never finished: was the task woken by the timers?",
            "a join waiting 200 ms for two timers",
            || {
                let executor = Executor::new().expect("an executor");
                let handle = executor.handle();
                let polls = testbed::testing::Polls::new();
                let both = executor.block_on(polls.count(join(
                    async {
                        handle.sleep(Duration::from_millis(200)).await;
                        "slow"
                    },
                    async {
                        handle.sleep(Duration::from_millis(100)).await;
                        "quick"
                    },
                )));
                // The first poll, and one per timer that fires.
                polls.assert_at_most(6, "a join of two sleeps");
                both.ok()
            },
        );
        assert_eq!(
            both,
            Some(("slow", "quick")),
            "both outputs, in argument order"
        );
    }
}
