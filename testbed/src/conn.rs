//! A blocking SLOW/1 connection over any byte stream.
//!
//! [`Conn`] pairs a stream with a [`LineFramer`] and speaks in messages:
//! [`send`](Conn::send) a [`Request`], [`recv`](Conn::recv) a [`Reply`].
//! It is generic over `Read + Write` on purpose: 01-sync uses it over a
//! `std::net::TcpStream`, and 06-scheduler over a fiber-aware stream that
//! *looks* blocking but yields to other fibers while it waits, so the very
//! same request code runs in both.
//!
//! Not here: the request logic (`HEAD`, wait for `OK`, `BODY`...), which is
//! the lesson of stage 1 and lives in the `sync` crate.

use std::fmt::Display;
use std::io::{self, Read, Write};

use crate::framing::{LineError, LineFramer};
use crate::outcome::{ErrorKind, Failure};
use crate::protocol::{Reply, Request};

/// A line-oriented connection: a stream plus the bytes read but not yet used.
#[derive(Debug)]
pub struct Conn<S> {
    stream: S,
    framer: LineFramer,
}

impl<S: Read + Write> Conn<S> {
    /// Wraps a connected stream.
    pub fn new(stream: S) -> Conn<S> {
        Conn {
            stream,
            framer: LineFramer::new(),
        }
    }

    /// Sends one request line.
    pub fn send(&mut self, request: &Request) -> Result<(), Failure> {
        self.write_line(request).map_err(|e| Failure::from_io(&e))
    }

    /// Waits for one reply line and parses it.
    ///
    /// A close, a timeout, a framing error and an unparsable line all become
    /// a [`Failure`] of the matching kind; every one of them breaks the
    /// connection ([`ErrorKind::breaks_connection`]).
    pub fn recv(&mut self) -> Result<Reply, Failure> {
        let line = self
            .read_line()?
            .ok_or_else(|| Failure::new(ErrorKind::Closed, "the server closed the connection"))?;
        Reply::parse(&line)
            .map_err(|e| Failure::new(ErrorKind::Protocol, format!("bad reply: {e}")))
    }

    /// Writes `line` and its `\n` in one `write_all`, so a message leaves in
    /// one segment instead of two (with Nagle's algorithm off, two writes
    /// would be two packets and twice the system calls).
    pub fn write_line(&mut self, line: &impl Display) -> io::Result<()> {
        let text = format!("{line}\n");
        self.stream.write_all(text.as_bytes())
    }

    /// Blocks until a whole line arrives; `Ok(None)` on a clean close.
    pub fn read_line(&mut self) -> Result<Option<String>, LineError> {
        self.framer.read_line(&mut self.stream)
    }

    /// The underlying stream, for socket options.
    pub fn get_ref(&self) -> &S {
        &self.stream
    }

    /// The underlying stream, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.stream
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ItemId, Payload, ResultHash};
    use crate::testing::Script;

    #[test]
    fn sends_lines_and_parses_replies_split_byte_by_byte() {
        let script = Script::new("OK\r\n200 000000000000002a\nbogus\n").byte_by_byte();
        let mut conn = Conn::new(script);
        let payload = Payload::new("p").expect("valid payload");
        conn.send(&Request::Get(ItemId(3), payload))
            .expect("write to a Vec");
        assert_eq!(conn.get_ref().sent(), "GET 3 p\n");
        assert_eq!(conn.recv(), Ok(Reply::Ok));
        assert_eq!(conn.recv(), Ok(Reply::Success(ResultHash(42))));
        assert_eq!(conn.recv().map_err(|f| f.kind), Err(ErrorKind::Protocol));
        assert_eq!(conn.recv().map_err(|f| f.kind), Err(ErrorKind::Closed));
    }
}
