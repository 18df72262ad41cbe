//! Chapter 8, exercise 3: what a dropped future leaves behind.
//!
//! A timeout is a race between a request and a timer, and the request that
//! loses is *dropped*: it stops wherever it stood, between sending its line
//! and reading its reply, and nothing runs after that point. The server does
//! not know; it answers anyway, later, on the same connection. The next
//! request on that connection would read that late answer as its own: a
//! wrong result that looks right.
//!
//! The executor's `request` guards against that with `InFlight`: dropped
//! before the conversation ended, the guard *poisons* its connection
//! (`AsyncConn::is_poisoned`). A failure that breaks the connection (the
//! server closed it, sent garbage) marks it *broken*. Either way
//! `AsyncConn::is_reusable` says no, and the connection must go.
//!
//! [`Keeper`] keeps one connection between requests, as a pool of one
//! would. Write [`Keeper::fetch`]: a request with a time limit, on the kept
//! connection when there is one, that keeps the connection afterwards only
//! if another request can safely follow on it.
//!
//! What you need: `request(&mut conn, item, Phases::One)` (the executor's
//! request, a future), and the executor's `Handle::timeout(limit, future)`,
//! which races a future against a timer: `Ok(output)` if the future was
//! ready in time, `Err(Elapsed)` if the timer won, in which case the
//! future has been dropped. The failure of a fetch past its limit is
//! `Failure::new(ErrorKind::Timeout, ...)`.
//!
//! Two quick answers, well within their limit: the second request goes on
//! the connection the first one kept:
//!
//! ```
//! use std::time::Duration;
//! use ch08_cancel::Keeper;
//! use executor::Executor;
//! use testbed::latency::LatencyModel;
//! use testbed::server::{ServerConfig, SlowServer};
//!
//! let latency = LatencyModel::Fixed(Duration::from_millis(1));
//! let server = SlowServer::spawn(ServerConfig { latency, ..ServerConfig::default() })?;
//! let (executor, work) = (Executor::new()?, testbed::workload::items(2, 1));
//! let mut keeper = Keeper::new(&executor.handle(), server.addr());
//! for item in &work {
//!     let outcome = executor.block_on(keeper.fetch(item, Duration::from_secs(1)))?;
//!     assert_eq!(outcome, Ok(item.expected_result()), "each item's own answer");
//! }
//! assert_eq!(keeper.opened, 1, "one connection carried both");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch08-cancel");

use std::net::SocketAddr;
use std::time::Duration;

use executor::{AsyncConn, Handle, request};
use testbed::outcome::{ErrorKind, Failure, Outcome};
use testbed::protocol::Phases;
use testbed::workload::Item;

/// One connection, kept between requests.
pub struct Keeper {
    handle: Handle,
    server: SocketAddr,
    /// The connection the next request will use, if one is kept.
    conn: Option<AsyncConn>,
    /// Connections opened so far.
    pub opened: usize,
}

impl Keeper {
    /// No connection yet: the first request opens one.
    pub fn new(handle: &Handle, server: SocketAddr) -> Keeper {
        Keeper {
            handle: handle.clone(),
            server,
            conn: None,
            opened: 0,
        }
    }

    /// The kept connection, or a new one (counted in `opened`).
    async fn take(&mut self) -> Result<AsyncConn, Failure> {
        if let Some(conn) = self.conn.take() {
            return Ok(conn);
        }
        self.opened += 1;
        AsyncConn::connect(&self.handle, self.server)
            .await
            .map_err(|e| Failure::from_io(&e))
    }

    // ANCHOR: exercise
    /// Sends `item` (one phase, `GET`) and waits at most `limit` for its
    /// answer: past it, the outcome is a `timeout` failure. Uses the kept
    /// connection if there is one, else opens one; afterwards keeps the
    /// connection only if another request can safely follow on it.
    pub async fn fetch(&mut self, item: &Item, limit: Duration) -> Outcome {
        let mut conn = self.take().await?;
        // EXERCISE-BEGIN: what does the timeout leave on the connection when it drops the request, and which connections may carry the next one?
        let outcome = match self
            .handle
            .timeout(limit, request(&mut conn, item, Phases::One))
            .await
        {
            Ok(outcome) => outcome,
            // The request was dropped half-way: its guard poisoned `conn`.
            Err(_) => Err(Failure::new(ErrorKind::Timeout, "no answer in time")),
        };
        if conn.is_reusable() {
            self.conn = Some(conn);
        }
        outcome
        // EXERCISE-END
    }
    // ANCHOR_END: exercise
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::net::{TcpListener, TcpStream};

    use executor::Executor;
    use testbed::protocol::{ItemId, Payload, ResultHash};
    use testbed::workload::items;

    use super::*;

    /// Item 0's answer takes this long; every other item's comes at once.
    const SLOW: Duration = Duration::from_secs(1);
    /// The time limit of every fetch: far below `SLOW`, far above an
    /// answer that comes at once.
    const LIMIT: Duration = Duration::from_millis(250);

    /// A peer that answers `GET`s in order on each connection: item 0
    /// after `SLOW`, item 2 never (it closes the connection instead), item
    /// 4 with a `500`, item 5 with a `NAK` (which answers a `HEAD`, never
    /// a `GET`), item 6 with garbage, item 7 with a reset; the others at
    /// once, with their `200`.
    fn peer() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a listener");
        let addr = listener.local_addr().expect("an address");
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                std::thread::spawn(move || answer(stream));
            }
        });
        addr
    }

    fn answer(stream: TcpStream) {
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        while matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let (Some(id), Some(payload)) = (words.get(1), words.get(2)) else {
                return;
            };
            let id: u64 = id.parse().unwrap_or_default();
            let odd = match id {
                0 => {
                    std::thread::sleep(SLOW);
                    None
                }
                2 => return,
                4 => Some("500 overloaded"),
                5 => Some("NAK busy"),
                6 => Some("#$%!"),
                7 => {
                    // A reset: SO_LINGER 0, then close.
                    let _ =
                        socket2::SockRef::from(reader.get_ref()).set_linger(Some(Duration::ZERO));
                    return;
                }
                _ => None,
            };
            if let Some(reply) = odd {
                if writeln!(reader.get_mut(), "{reply}").is_err() {
                    return;
                }
                line.clear();
                continue;
            }
            let hash = ResultHash::of(
                ItemId(id),
                &Payload::new(*payload).expect("a valid payload"),
            );
            if writeln!(reader.get_mut(), "200 {hash}").is_err() {
                return;
            }
            line.clear();
        }
    }

    /// Fetches `ids` in order with one keeper; returns each outcome and
    /// how many connections were opened.
    fn fetch_in_order(ids: &[usize]) -> (Vec<Outcome>, usize) {
        let addr = peer();
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let work = items(8, 1);
        executor
            .block_on(async {
                let mut keeper = Keeper::new(&handle, addr);
                let mut outcomes = Vec::new();
                for &id in ids {
                    outcomes.push(keeper.fetch(&work[id], LIMIT).await);
                }
                (outcomes, keeper.opened)
            })
            .expect("the executor finishes")
    }

    fn answer_of(id: usize) -> Outcome {
        Ok(items(8, 1)[id].expected_result())
    }

    #[test]
    fn a_healthy_connection_carries_every_request() {
        let (outcomes, opened) = fetch_in_order(&[1, 3, 1]);
        assert_eq!(
            outcomes,
            [answer_of(1), answer_of(3), answer_of(1)],
            "each item should get its own answer"
        );
        assert_eq!(
            opened, 1,
            "a connection whose requests all ended should be kept and reused"
        );
    }

    #[test]
    fn a_request_past_its_limit_fails_as_a_timeout() {
        let (outcomes, _) = fetch_in_order(&[0]);
        assert_eq!(
            outcomes[0].as_ref().map_err(|f| f.kind),
            Err(ErrorKind::Timeout),
            "an answer that takes 1 s should fail a fetch limited to 250 ms, as a timeout"
        );
    }

    #[test]
    fn a_timed_out_connection_is_not_reused() {
        // Item 0 times out; its answer is still on its way. Reused, its
        // connection would give item 0's late answer to item 1.
        let (outcomes, opened) = fetch_in_order(&[0, 1]);
        assert_eq!(
            outcomes[1],
            answer_of(1),
            "the request after a timeout should get its own answer: the timed-out connection must not carry it"
        );
        assert_eq!(
            opened, 2,
            "the timeout left its connection poisoned: the next request needs a new one"
        );
    }

    #[test]
    fn a_broken_connection_is_not_reused() {
        // The peer closes the connection instead of answering item 2.
        let (outcomes, opened) = fetch_in_order(&[2, 3]);
        assert_eq!(
            outcomes[0].as_ref().map_err(|f| f.kind),
            Err(ErrorKind::Closed),
            "a connection the server closed should fail the request as closed"
        );
        assert_eq!(
            outcomes[1],
            answer_of(3),
            "the request after a close should get its answer, on a new connection"
        );
        assert_eq!(opened, 2, "a closed connection must be replaced");
    }

    #[test]
    fn a_fetch_waiting_for_its_limit_sleeps() {
        let addr = peer();
        let outcome = testbed::testing::assert_quiet_within(
            Duration::from_secs(2),
            "a fetch limited to 250 ms never ended, though its answer takes 1 s",
            "a fetch waiting 250 ms for its limit",
            move || {
                let executor = Executor::new().expect("an executor");
                let mut keeper = Keeper::new(&executor.handle(), addr);
                let work = items(1, 1);
                executor
                    .block_on(keeper.fetch(&work[0], LIMIT))
                    .expect("the executor finishes")
                    .map_err(|f| f.kind)
            },
        );
        assert_eq!(
            outcome,
            Err(ErrorKind::Timeout),
            "the fetch should fail as a timeout at its limit"
        );
    }

    #[test]
    fn every_answer_slow1_allows_decides_whether_the_connection_stays() {
        // (item, the failure it must give, connections opened for it and
        // the request after it: 1 if the connection may carry on, 2 if it
        // must go).
        let cases = [
            (
                4,
                ErrorKind::Ko,
                1,
                "a 500 ends the conversation properly: the connection carries on",
            ),
            (
                5,
                ErrorKind::Protocol,
                2,
                "a NAK to a GET breaks the protocol: the connection must go",
            ),
            (
                6,
                ErrorKind::Protocol,
                2,
                "garbage breaks the protocol: the connection must go",
            ),
            (
                7,
                ErrorKind::Closed,
                2,
                "a reset connection is dead: a new one carries the next request",
            ),
        ];
        for (id, kind, connections, why) in cases {
            let (outcomes, opened) = fetch_in_order(&[id, 1]);
            assert_eq!(
                outcomes[0].as_ref().map_err(|f| f.kind),
                Err(kind),
                "item {id}: {why}"
            );
            assert_eq!(
                (&outcomes[1], opened),
                (&answer_of(1), connections),
                "item {id}: {why}; the next request should get its own answer"
            );
        }
    }
}
