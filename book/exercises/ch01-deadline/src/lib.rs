//! Chapter 1, exercise 1: a deadline for the whole request.
//!
//! `TcpStream::set_read_timeout` bounds *each* `read()`, not the request. A
//! two-phase request with a 100 ms timeout may take 200 ms (each reply
//! arrives just in time), and a server that trickles one byte every 99 ms
//! keeps it alive forever. What a caller usually means is a deadline: "give
//! up on this item at 12:00:00.120, whatever happens".
//!
//! [`DeadlineStream`] wraps a `TcpStream` and, before every read, sets the
//! socket's timeout to the time *left* until the deadline. Because stage 1's
//! request function is generic over `Read + Write`, it runs unchanged over
//! this stream: [`request_by`] is just `sync::request` with a different
//! stream underneath.
//!
//! A request against the slow server, with a second to spare:
//!
//! ```
//! use std::net::TcpStream;
//! use std::time::{Duration, Instant};
//! use testbed::protocol::Phases;
//! use testbed::server::{ServerConfig, SlowServer};
//!
//! let server = SlowServer::spawn(ServerConfig::default())?;
//! let item = &testbed::workload::items(1, 1)[0];
//! let stream = TcpStream::connect(server.addr())?;
//! let deadline = Instant::now() + Duration::from_secs(1);
//! let outcome = ch01_deadline::request_by(stream, item, Phases::Two, deadline);
//! assert_eq!(outcome, Ok(item.expected_result()), "the item's answer, well within its deadline");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch01-deadline");

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

use testbed::conn::Conn;
use testbed::outcome::Outcome;
use testbed::protocol::Phases;
use testbed::workload::Item;

/// A stream whose reads fail with `TimedOut` once `deadline` has passed.
#[derive(Debug)]
pub struct DeadlineStream {
    /// The connection.
    pub inner: TcpStream,
    /// When to give up.
    pub deadline: Instant,
}

// ANCHOR: exercise
impl Read for DeadlineStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // EXERCISE-BEGIN: what should a read do once the deadline has passed, and how long may it wait before then?
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "deadline passed"));
        }
        // `set_read_timeout(Some(0))` is an error, and `left` is not zero.
        self.inner.set_read_timeout(Some(left))?;
        self.inner.read(buf)
        // EXERCISE-END
    }
}
// ANCHOR_END: exercise

impl Write for DeadlineStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Stage 1's request, finished by `deadline` or failed with `timeout`.
pub fn request_by(stream: TcpStream, item: &Item, phases: Phases, deadline: Instant) -> Outcome {
    let mut conn = Conn::new(DeadlineStream {
        inner: stream,
        deadline,
    });
    sync::request(&mut conn, item, phases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use testbed::latency::LatencyModel;
    use testbed::outcome::ErrorKind;
    use testbed::server::{ServerConfig, SlowServer};
    use testbed::workload::items;

    fn server(per_phase: Duration) -> SlowServer {
        SlowServer::spawn(ServerConfig {
            latency: LatencyModel::Fixed(per_phase),
            ..ServerConfig::default()
        })
        .expect("the embedded server starts")
    }

    #[test]
    fn a_generous_deadline_lets_the_request_finish() {
        let server = server(Duration::from_millis(5));
        let item = &items(1, 1)[0];
        let stream = TcpStream::connect(server.addr()).expect("connect to the embedded server");
        let deadline = Instant::now() + Duration::from_secs(5);
        assert_eq!(
            request_by(stream, item, Phases::Two, deadline),
            Ok(item.expected_result()),
            "a request well within its deadline should finish with the right answer"
        );
    }

    #[test]
    fn the_deadline_bounds_the_whole_request_not_each_read() {
        // Each reply takes 1 s, well within a 1.5 s per-read timeout; the
        // two together take 2 s, past the 1.5 s deadline. (Long enough that
        // a busy machine's delays cannot blur the deadline and the second
        // reply.)
        let server = server(Duration::from_secs(1));
        let item = &items(1, 1)[0];
        let stream = TcpStream::connect(server.addr()).expect("connect to the embedded server");
        let start = Instant::now();
        let outcome = request_by(
            stream,
            item,
            Phases::Two,
            start + Duration::from_millis(1500),
        );
        assert_eq!(
            outcome.map_err(|f| f.kind),
            Err(ErrorKind::Timeout),
            "two 1 s replies should not fit in a 1.5 s deadline, though each fits in the time left when its read starts"
        );
        // It gave up at the deadline, not when the reply finally came.
        assert!(
            start.elapsed() < Duration::from_millis(1900),
            "the request should give up at its deadline, not when the late reply came: it took {:?}",
            start.elapsed()
        );
    }

    #[test]
    fn a_passed_deadline_fails_at_once() {
        let server = server(Duration::from_millis(5));
        let item = &items(1, 1)[0];
        let stream = TcpStream::connect(server.addr()).expect("connect to the embedded server");
        let outcome = request_by(stream, item, Phases::One, Instant::now());
        assert_eq!(
            outcome.map_err(|f| f.kind),
            Err(ErrorKind::Timeout),
            "a read after the deadline should fail at once as a timeout"
        );
    }
}
