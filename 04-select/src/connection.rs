//! One non-blocking TCP connection: bytes in, lines out, lines in, bytes
//! out, and a `connect` that finishes later.
//!
//! Three rules of non-blocking I/O live here, so the rest of the crate can
//! think in lines:
//!
//! - **Read what is there, never a line.** After an event, read until the
//!   socket says `WouldBlock` (edge-triggered epoll reports an edge once;
//!   leave bytes behind and nobody wakes you again), or until a short read
//!   proves the buffer empty (see `fill`), and give the bytes to
//!   the one framer, [`LineFramer`], which keeps a partial line for later and
//!   hands out only whole ones. The seed article reads a whole line with
//!   `<$fh>` after `select` said "readable": if the reply arrived in two
//!   segments, that read blocks the whole program until the second one
//!   comes (chapter 4 shows it; `tests/it/partial.rs` is the regression
//!   test).
//! - **Write what fits, queue the rest** ([`Outbox`]), and watch for
//!   "writable" only while something is queued.
//! - **`connect` returns at once.** The handshake finishes later; the
//!   kernel reports it as "writable", and only then does
//!   [`TcpStream::take_error`] say whether it worked (a refused connection
//!   is an error there, not at `connect`).
//!
//! The first and the last rule are shared with every later rung, so their
//! fine print lives in [`crate::nonblocking`].
//!
//! Not here: what the lines mean ([`crate::exchange`]), when to wait
//! ([`crate::pool`]).

use std::fmt::Display;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, BorrowedFd};

use mio::net::TcpStream;
use testbed::framing::{FrameError, LineFramer, READ_CHUNK};
use testbed::outcome::{ErrorKind, Failure};
use testbed::protocol::Reply;

use crate::event::{Event, Interest};
use crate::nonblocking;
use crate::outbox::Outbox;

/// A non-blocking connection to a SLOW/1 server.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    /// The handshake has not been confirmed yet.
    connecting: bool,
    /// Bytes read, cut into lines.
    framer: LineFramer,
    /// Bytes the socket has not taken yet.
    outbox: Outbox,
    /// The peer closed its side: every byte it sent has been read.
    eof: bool,
    /// Bytes taken from the socket, and handed to it, over the
    /// connection's life: what a read timeout must look at (see
    /// [`bytes_moved`](Self::bytes_moved)).
    bytes_read: u64,
    bytes_written: u64,
}

impl Connection {
    // ANCHOR: connect
    /// Starts connecting to `addr` without waiting for the handshake: the
    /// connection is usable (lines can be queued) at once, and becomes
    /// connected when an event for it arrives.
    pub fn connect(addr: SocketAddr) -> io::Result<Connection> {
        // mio creates the socket non-blocking and calls `connect`, which
        // returns `EINPROGRESS`; mio reports that as success.
        let stream = TcpStream::connect(addr)?;
        Ok(Connection::new(stream, true))
    }
    // ANCHOR_END: connect

    /// Wraps a stream that is already connected (for tests and for callers
    /// that connect their own way). It must be in non-blocking mode.
    pub fn from_connected(stream: std::net::TcpStream) -> io::Result<Connection> {
        stream.set_nonblocking(true)?;
        stream.set_nodelay(true)?;
        Ok(Connection::new(TcpStream::from_std(stream), false))
    }

    fn new(stream: TcpStream, connecting: bool) -> Connection {
        Connection {
            stream,
            connecting,
            framer: LineFramer::new(),
            outbox: Outbox::new(),
            eof: false,
            bytes_read: 0,
            bytes_written: 0,
        }
    }

    /// The descriptor, for the selector.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.stream.as_fd()
    }

    // ANCHOR: interest
    /// What the selector should watch this connection for, given its state:
    /// "writable" while connecting (that is how the handshake's end shows)
    /// or while bytes wait in the outbox, "readable" once connected.
    pub fn interest(&self) -> Interest {
        if self.connecting {
            Interest::Write
        } else if self.outbox.is_empty() {
            Interest::Read
        } else {
            Interest::ReadWrite
        }
    }
    // ANCHOR_END: interest

    /// Queues `line` and its `\n`, and sends as much as the socket takes
    /// now (nothing while still connecting: the handshake's event will).
    pub fn send_line(&mut self, line: &impl Display) -> io::Result<()> {
        self.outbox.push(format!("{line}\n").as_bytes());
        if self.connecting {
            return Ok(());
        }
        self.flush()
    }

    // ANCHOR: on_ready
    /// Does the I/O an event makes possible: finishes the handshake, sends
    /// what is queued, reads everything that has arrived. Never blocks.
    /// Complete lines are then available from [`next_reply`](Self::next_reply).
    ///
    /// An error means the connection is unusable (a refused connect is
    /// `ConnectionRefused` here).
    pub fn on_ready(&mut self, event: &Event) -> io::Result<()> {
        if self.connecting && !self.finish_connect()? {
            return Ok(()); // A spurious wake-up: still connecting.
        }
        if !self.outbox.is_empty() {
            self.flush()?;
        }
        if event.readable {
            self.fill(event.closed)?;
        }
        Ok(())
    }

    /// Hands the socket what it takes of the outbox, and counts it.
    fn flush(&mut self) -> io::Result<()> {
        let written = self.outbox.flush_to(&mut self.stream)?;
        self.bytes_written += written as u64;
        Ok(())
    }

    /// Checks whether the handshake is over (the rule is
    /// [`nonblocking::connect_finished`]'s): `Ok(true)` when connected,
    /// `Ok(false)` when still in progress, the connect's error otherwise.
    fn finish_connect(&mut self) -> io::Result<bool> {
        let done = nonblocking::connect_finished(&self.stream)?;
        self.connecting = !done;
        Ok(done)
    }

    /// Reads until `WouldBlock` (or the end of the stream), feeding the
    /// framer: a partial line just waits there for its end.
    ///
    /// One shortcut, [`nonblocking::drained`]: a short read emptied the
    /// socket, so stop there rather than make a read that would only say
    /// `WouldBlock` — unless the event said the peer `closed`, when only
    /// reading on to the end of the stream finds that close.
    fn fill(&mut self, closed: bool) -> io::Result<()> {
        loop {
            match self.framer.read_from(&mut self.stream) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.bytes_read += n as u64;
                    if nonblocking::drained(n, READ_CHUNK, closed) {
                        return Ok(());
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
    // ANCHOR_END: on_ready

    /// The next complete reply already read, if any; `Ok(None)` means "wait
    /// for the next event". A line that breaks the framing or is not a reply
    /// is a [`ErrorKind::Protocol`] failure.
    pub fn next_reply(&mut self) -> Result<Option<Reply>, Failure> {
        let line = match self.framer.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => return Ok(None),
            Err(e) => return Err(frame_failure(e)),
        };
        Reply::parse(&line)
            .map(Some)
            .map_err(|e| Failure::new(ErrorKind::Protocol, format!("bad reply: {e}")))
    }

    /// The peer has closed its side and everything it sent has been read.
    pub fn at_eof(&self) -> bool {
        self.eof
    }

    /// Part of a line has arrived without its end.
    pub fn has_partial_line(&self) -> bool {
        self.framer.has_partial()
    }

    /// Bytes read from the socket and written to it so far, over the
    /// connection's life.
    ///
    /// This, not the arrival of an event, is what says the peer is alive:
    /// readiness is only a hint, and an event may lead to no I/O at all (a
    /// "readable" whose read says `WouldBlock`, a "writable" with nothing
    /// queued). A caller that measures silence, like stage 5's read
    /// timeout, compares this count before and after handling an event.
    pub fn bytes_moved(&self) -> u64 {
        self.bytes_read + self.bytes_written
    }

    /// Bytes queued but not yet taken by the socket.
    pub fn queued(&self) -> usize {
        self.outbox.len()
    }

    /// The handshake is not confirmed yet.
    pub fn is_connecting(&self) -> bool {
        self.connecting
    }

    /// The socket, for options and addresses.
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }
}

fn frame_failure(error: FrameError) -> Failure {
    Failure::new(ErrorKind::Protocol, error.to_string())
}
