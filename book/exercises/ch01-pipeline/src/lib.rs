//! Chapter 1, exercise 2: pipelining requests on one connection.
//!
//! Stage 1 waits for each reply before sending the next request, so every
//! item pays a full round trip. Nothing in SLOW/1 forbids sending several
//! `GET`s first and reading the replies afterwards, and one rule makes it
//! safe: *within one connection, requests are answered in order*. Replies
//! carry no id; the only thing that ties a reply to its request is its
//! position.
//!
//! Pipelining saves round trips, not service time: the server still works
//! on one request of a connection at a time. That is why it helps little
//! here, and why the later stages open many connections instead.
//!
//! Three items on one connection, one outcome each, in item order:
//!
//! ```
//! use std::net::TcpStream;
//! use testbed::conn::Conn;
//! use testbed::server::{ServerConfig, SlowServer};
//!
//! let server = SlowServer::spawn(ServerConfig::default())?;
//! let list = testbed::workload::items(3, 1);
//! let mut conn = Conn::new(TcpStream::connect(server.addr())?);
//! let outcomes = ch01_pipeline::pipelined(&mut conn, &list);
//! let expected: Vec<_> = list.iter().map(|item| Ok(item.expected_result())).collect();
//! assert_eq!(outcomes, expected, "every item's outcome, in item order");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch01-pipeline");

use std::io::{Read, Write};

use testbed::conn::Conn;
use testbed::outcome::{self, Outcome};
use testbed::protocol::Request;
use testbed::workload::Item;

// ANCHOR: exercise
/// Sends a `GET` for every item, then reads one reply per item, and returns
/// the outcomes in item order.
pub fn pipelined<S: Read + Write>(conn: &mut Conn<S>, items: &[Item]) -> Vec<Outcome> {
    // EXERCISE-BEGIN: in what order must the replies be read, and why may every request be sent before the first reply?
    for item in items {
        if let Err(failure) = conn.send(&Request::Get(item.id, item.payload.clone())) {
            return items.iter().map(|_| Err(failure.clone())).collect();
        }
    }
    items
        .iter()
        .map(|_| outcome::answer(conn.recv()?))
        .collect()
    // EXERCISE-END
}
// ANCHOR_END: exercise

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;
    use std::net::TcpStream;
    use std::time::Duration;
    use testbed::faults::{Fault, FaultPlan};
    use testbed::latency::LatencyModel;
    use testbed::outcome::ErrorKind;
    use testbed::protocol::Phase;
    use testbed::server::{ServerConfig, SlowServer};
    use testbed::workload::items;

    /// Records the order of writes and reads on the wrapped stream.
    struct Spy {
        inner: TcpStream,
        log: String,
    }

    impl Read for Spy {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.log.push('R');
            self.inner.read(buf)
        }
    }

    impl Write for Spy {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.log.push('W');
            self.inner.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            self.inner.flush()
        }
    }

    fn connect(server: &SlowServer) -> Conn<Spy> {
        let inner = TcpStream::connect(server.addr()).expect("connect to the embedded server");
        inner
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("set a read timeout");
        Conn::new(Spy {
            inner,
            log: String::new(),
        })
    }

    #[test]
    fn every_request_leaves_before_the_first_reply_is_read() {
        let server = SlowServer::spawn(ServerConfig::default()).expect("server starts");
        let list = items(4, 1);
        let mut conn = connect(&server);
        let outcomes = pipelined(&mut conn, &list);
        assert_eq!(outcomes.len(), 4, "one outcome per item");
        let log = &conn.get_ref().log;
        assert!(
            log.starts_with("WWWW") && !log[4..].contains('W'),
            "every request should be written before the first read (W: write, R: read): {log}"
        );
    }

    /// A server that answers `GET`s after 1 ms, with a `500` for about
    /// half of them when `ko` is set, and the outcomes of 12 items
    /// pipelined on one connection.
    fn twelve(ko: bool) -> (Vec<Item>, Vec<Outcome>, FaultPlan) {
        let seed = 1;
        let faults = if ko {
            FaultPlan::none().with(Fault::Ko, 0.5)
        } else {
            FaultPlan::none()
        };
        let server = SlowServer::spawn(ServerConfig {
            latency: LatencyModel::Fixed(Duration::from_millis(1)),
            faults,
            seed,
            max_conns: None,
        })
        .expect("server starts");
        let list = items(12, seed);
        let outcomes = pipelined(&mut connect(&server), &list);
        (list, outcomes, faults)
    }

    /// Is `item`'s `GET` answered with a `500`?
    fn is_ko(faults: &FaultPlan, item: &Item) -> bool {
        faults.decide(1, item.id, Phase::Get) == Some(Fault::Ko)
    }

    #[test]
    fn replies_are_matched_to_requests_by_order() {
        let (list, outcomes, _) = twelve(false);
        for (item, outcome) in list.iter().zip(&outcomes) {
            assert_eq!(
                outcome,
                &Ok(item.expected_result()),
                "item {} should get its own reply: replies go to requests in the order they were \
                 sent",
                item.id
            );
        }
    }

    #[test]
    fn a_single_item_gets_its_reply() {
        let server = SlowServer::spawn(ServerConfig::default()).expect("server starts");
        let list = items(1, 1);
        let outcomes = pipelined(&mut connect(&server), &list);
        assert_eq!(
            outcomes,
            [Ok(list[0].expected_result())],
            "one request, one reply: read as many replies as requests were sent"
        );
    }

    #[test]
    fn a_500_reads_as_a_ko() {
        let (list, outcomes, faults) = twelve(true);
        let kos = list
            .iter()
            .zip(&outcomes)
            .filter(|(i, _)| is_ko(&faults, i));
        let mut seen = 0;
        for (item, outcome) in kos {
            seen += 1;
            assert_eq!(
                outcome.as_ref().map_err(|f| f.kind),
                Err(ErrorKind::Ko),
                "item {} was answered `500`: that is a KO (an answer), not a protocol error",
                item.id
            );
        }
        assert!(seen > 0, "the test needs a KO among the items it checked");
    }

    #[test]
    fn a_ko_answers_its_own_request_only() {
        let (list, outcomes, faults) = twelve(true);
        let first_ko = list.iter().position(|i| is_ko(&faults, i));
        assert!(
            first_ko.is_some_and(|k| list[k..].iter().any(|i| !is_ko(&faults, i))),
            "the test needs a result after a KO"
        );
        for (item, outcome) in list.iter().zip(&outcomes) {
            if !is_ko(&faults, item) {
                assert_eq!(
                    outcome,
                    &Ok(item.expected_result()),
                    "item {} was answered with its result: a KO before it answers one request \
                     only, and the connection goes on",
                    item.id
                );
            }
        }
    }

    #[test]
    fn every_item_has_an_outcome_even_after_a_ko() {
        let (list, outcomes, _) = twelve(true);
        assert_eq!(
            outcomes.len(),
            list.len(),
            "one outcome per item, whatever the replies said"
        );
    }

    #[test]
    fn a_connection_that_breaks_fails_its_item_and_every_one_after() {
        // Each answer that ends the connection, or its framing: the item
        // it hits gets that failure, the ones before keep their results,
        // and after a close or a reset no reply can come for the rest.
        for (fault, kind, rest) in [
            (Fault::Drop, ErrorKind::Closed, Some(ErrorKind::Closed)),
            (Fault::Reset, ErrorKind::Closed, Some(ErrorKind::Closed)),
            (Fault::Garbage, ErrorKind::Protocol, None),
        ] {
            let seed = 3;
            let faults = FaultPlan::none().with(fault, 0.2);
            let server = SlowServer::spawn(ServerConfig {
                latency: LatencyModel::Fixed(Duration::from_millis(1)),
                faults,
                seed,
                max_conns: None,
            })
            .expect("server starts");
            let list = items(12, seed);
            let hit = list
                .iter()
                .position(|i| faults.decide(seed, i.id, Phase::Get).is_some())
                .expect("the seed puts the fault on one of the 12 items");
            let outcomes = pipelined(&mut connect(&server), &list);
            assert_eq!(outcomes.len(), list.len(), "{fault}: one outcome per item");
            for (item, outcome) in list[..hit].iter().zip(&outcomes) {
                assert_eq!(
                    outcome,
                    &Ok(item.expected_result()),
                    "{fault} on item {}: item {} before it was answered, and keeps its result",
                    list[hit].id,
                    item.id
                );
            }
            assert_eq!(
                outcomes[hit].as_ref().map_err(|f| f.kind),
                Err(kind),
                "{fault} on item {}: its outcome",
                list[hit].id
            );
            if let Some(rest) = rest {
                for (item, outcome) in list[hit + 1..].iter().zip(&outcomes[hit + 1..]) {
                    assert_eq!(
                        outcome.as_ref().map_err(|f| f.kind),
                        Err(rest),
                        "{fault} on item {}: item {} after it can get no reply on a connection \
                         that is gone",
                        list[hit].id,
                        item.id
                    );
                }
            }
        }
    }
}
