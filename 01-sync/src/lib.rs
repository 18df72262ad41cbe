//! Stage 1: blocking. One connection, one item at a time.
//!
//! The first rung of the ladder is the code everyone writes first (the source
//! article's "Sincrono"): send a request, wait for the reply, store it, next
//! item. It is correct, short and easy to read, and it spends almost all of
//! its time waiting: with a service time of `L`, it can never do better
//! than `1 / L` items per second (two-phase: `1 / 2L`), however fast the
//! machine. Every later stage is an answer to that.
//!
//! The request function, [`request`], is generic over `Read + Write`. It is
//! the heart of this stage, and it will come back unchanged: 02-fork runs it
//! in several processes, and 06-scheduler runs it inside fibers, over a
//! stream that *looks* blocking but lets other fibers run while it waits.
//!
//! The source article shows three shapes, all here:
//!
//! - a new connection for every request ([`Blocking::connect_per_request`]);
//! - one connection reused for every request (the default);
//! - the two-phase request: `HEAD`, wait for `OK`, `BODY`, wait for `200`
//!   (`--phases 2`, the default; `--phases 1` sends one `GET`).
//!
//! # Examples
//!
//! [`request`] over a scripted peer instead of a socket: the replies are
//! written in advance, and what the request sent can be read back.
//!
//! ```
//! use sync::request;
//! use testbed::conn::Conn;
//! use testbed::protocol::Phases;
//! use testbed::testing::Script;
//! use testbed::workload::items;
//!
//! let item = &items(1, 1)[0];
//! let replies = format!("OK\n200 {}\n", item.expected_result());
//! let mut conn = Conn::new(Script::new(replies));
//! assert_eq!(request(&mut conn, item, Phases::Two), Ok(item.expected_result()));
//! let sent = conn.get_ref().sent();
//! assert_eq!(sent, format!("HEAD 0\nBODY 0 {}\n", item.payload));
//! ```

#![forbid(unsafe_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use testbed::conn::Conn;
use testbed::outcome::{self, Failure, Outcome};
use testbed::protocol::{Phases, Request};
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::store::Lane;
use testbed::workload::Item;

/// The blocking stage.
///
/// # Examples
///
/// The stage as the binary runs it, on an embedded slow server: ten items,
/// one at a time, on one connection.
///
/// ```
/// use sync::Blocking;
/// use testbed::cli::Settings;
/// use testbed::harness::execute;
///
/// let settings = Settings {
///     items: 10,
///     latency: "1ms".parse().expect("a latency"),
///     ..Settings::default()
/// };
/// let report = execute(&Blocking::default(), &settings)?.report;
/// assert_eq!((report.ok, report.lost, report.conns), (10, 0, 1));
/// # Ok::<(), testbed::harness::HarnessError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Blocking {
    /// Open a new connection for every item and close it after (the source article's
    /// first `sync`), instead of reusing one. Costs a TCP handshake per item.
    pub connect_per_request: bool,
}

impl Stage for Blocking {
    fn name(&self) -> &'static str {
        "sync"
    }

    /// One connection, whatever `--conns` says.
    fn connections(&self, _conns: usize) -> usize {
        1
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        // ANCHOR: run
        let mut store = scenario.open_store()?;
        let mut conn = None;
        for item in &scenario.items {
            let started = Instant::now();
            let outcome = connect_and_request(&mut conn, scenario, item);
            if self.connect_per_request {
                conn = None;
            }
            store.record(item.id, Lane(0), started, &outcome)?;
        }
        // ANCHOR_END: run
        Ok(RunStats::new(1))
    }
}

/// Sends one item over `conn`, connecting to the scenario's server first if
/// there is no connection: [`request_reusing`] with [`connect`].
///
/// Public because 02-fork's workers run the same loop, one copy per worker.
pub fn connect_and_request(
    conn: &mut Option<Conn<TcpStream>>,
    scenario: &Scenario,
    item: &Item,
) -> Outcome {
    let open = || {
        connect(
            scenario.server,
            scenario.connect_timeout,
            scenario.read_timeout,
        )
    };
    request_reusing(conn, open, item, scenario.phases)
}

// ANCHOR: reusing
/// Sends one item over a connection that lives from one item to the next:
/// opens it with `open` when there is none, and drops it when the outcome
/// says it cannot carry another request (it closed, timed out or sent
/// garbage: [`ErrorKind::breaks_connection`]), so the next call opens a
/// fresh one.
///
/// [`ErrorKind::breaks_connection`]: outcome::ErrorKind::breaks_connection
///
/// A refused or failed connect is this item's outcome, not an error of the
/// run. Generic over the stream like [`request`]: 02-fork's workers and
/// 06-scheduler's fibers run this same loop body.
pub fn request_reusing<S: Read + Write>(
    conn: &mut Option<Conn<S>>,
    open: impl FnOnce() -> Result<Conn<S>, Failure>,
    item: &Item,
    phases: Phases,
) -> Outcome {
    let live = match conn {
        Some(live) => live,
        None => conn.insert(open()?),
    };
    let outcome = request(live, item, phases);
    if matches!(&outcome, Err(f) if f.kind.breaks_connection()) {
        *conn = None;
    }
    outcome
}
// ANCHOR_END: reusing

/// Opens a blocking connection to the slow server.
///
/// `TCP_NODELAY` turns off Nagle's algorithm: without it the kernel may hold
/// a small request back for up to 40 ms hoping to batch it, which would
/// dwarf a 5 ms service time. The connect timeout bounds the handshake (a
/// server that drops SYNs would otherwise hold `connect` for about two
/// minutes); a read timeout, if any, turns a server that never answers into
/// a `timeout` failure instead of a run that never ends.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// use sync::{connect, request};
/// use testbed::protocol::Phases;
/// use testbed::server::{ServerConfig, SlowServer};
/// use testbed::workload::items;
///
/// let server = SlowServer::spawn(ServerConfig::default())?;
/// let timeout = Some(Duration::from_secs(5));
/// let mut conn = connect(server.addr(), Duration::from_secs(5), timeout)?;
/// for item in items(3, 1) {
///     assert_eq!(request(&mut conn, &item, Phases::One), Ok(item.expected_result()));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn connect(
    addr: SocketAddr,
    connect_timeout: Duration,
    read_timeout: Option<Duration>,
) -> Result<Conn<TcpStream>, Failure> {
    let io = |e: std::io::Error| Failure::from_io(&e);
    let stream = TcpStream::connect_timeout(&addr, connect_timeout).map_err(io)?;
    stream.set_nodelay(true).map_err(io)?;
    stream.set_read_timeout(read_timeout).map_err(io)?;
    Ok(Conn::new(stream))
}

// ANCHOR: request
/// Sends one item and waits for its answer: one `GET`, or `HEAD`, `OK`,
/// `BODY`. Blocks until the answer comes (or the stream fails).
///
/// Generic over the stream, so the same code runs over a `TcpStream`, a test
/// script, or 06-scheduler's fiber stream.
pub fn request<S: Read + Write>(conn: &mut Conn<S>, item: &Item, phases: Phases) -> Outcome {
    if phases == Phases::Two {
        conn.send(&Request::Head(item.id))?;
        // `OK` goes on; `NAK`, or any other reply, ends the item here.
        outcome::ack(conn.recv()?)?;
        conn.send(&Request::Body(item.id, item.payload.clone()))?;
    } else {
        conn.send(&Request::Get(item.id, item.payload.clone()))?;
    }
    // `200` is the result; `500`, or any other reply, a failure.
    outcome::answer(conn.recv()?)
}
// ANCHOR_END: request

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::outcome::ErrorKind;
    use testbed::testing::Script;
    use testbed::workload::items;

    fn scripted(replies: &str) -> Conn<Script> {
        Conn::new(Script::new(replies))
    }

    #[test]
    fn two_phases_send_head_then_body() {
        let item = &items(1, 1)[0];
        let mut conn = scripted(&format!("OK\n200 {}\n", item.expected_result()));
        assert_eq!(
            request(&mut conn, item, Phases::Two),
            Ok(item.expected_result())
        );
        assert_eq!(
            conn.get_ref().sent(),
            format!("HEAD 0\nBODY 0 {}\n", item.payload)
        );
    }

    #[test]
    fn a_nak_ends_the_request_before_the_body() {
        let item = &items(1, 1)[0];
        let mut conn = scripted("NAK not now\n");
        let failure = request(&mut conn, item, Phases::Two).expect_err("NAK fails the item");
        assert_eq!(
            (failure.kind, failure.detail.as_str()),
            (ErrorKind::Nak, "not now")
        );
        assert_eq!(conn.get_ref().sent(), "HEAD 0\n");
    }

    #[test]
    fn replies_map_to_error_kinds() {
        let item = &items(1, 1)[0];
        let cases = [
            ("500 KO\n", ErrorKind::Ko),
            ("503 busy\n", ErrorKind::Refused),
            ("OK\n", ErrorKind::Protocol),
            ("400 bad\n", ErrorKind::Protocol),
            ("\x01\n", ErrorKind::Protocol),
            ("200 12", ErrorKind::Closed),
            ("", ErrorKind::Closed),
        ];
        for (replies, kind) in cases {
            let outcome = request(&mut scripted(replies), item, Phases::One);
            assert_eq!(outcome.map_err(|f| f.kind), Err(kind), "{replies:?}");
        }
    }
}
