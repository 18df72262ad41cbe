//! One non-blocking TCP connection: bytes in, lines out, lines in, bytes
//! out, and a `connect` that finishes later.
//!
//! Three rules of non-blocking I/O live here, so the rest of the crate can
//! think in lines:
//!
//! - **Read what is there, a line at a time.** "Readable" means some bytes
//!   have arrived, not a whole line: read what the socket has and give it
//!   to the one framer, [`LineFramer`], which keeps a partial line for
//!   later and hands out only whole ones. The source article reads a whole
//!   line with `<$fh>` after `select` said "readable": if the reply arrived
//!   in two segments, that read blocks the whole program until the second
//!   one comes (chapter 4 shows it; `tests/it/partial.rs` is the regression
//!   test). Reading stops as soon as the framer holds a complete line, and
//!   goes on when the caller asks for the next one, until the socket says
//!   `WouldBlock` or a short read proves it empty (see `fill`).
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
//! # Why a line at a time
//!
//! Reading until `WouldBlock` before taking any line out is what an
//! edge-triggered selector seems to ask for (it reports an edge once; leave
//! bytes behind and nobody wakes you again). But a peer that keeps the
//! receive buffer full then makes that loop hold everything it sends, and
//! keeps the pool's one thread on this connection while the others wait.
//!
//! A server, which may be sent many requests back to back, would stop
//! after a budget of reads and put the connection on a "still readable"
//! list that its loop serves, with a zero timeout, before it waits again
//! (tokio's cooperative budget does this). A client that has one request
//! in flight per connection needs no such list: at most one reply line is
//! ever due, so it reads until it holds one line, lets its caller judge
//! that line, and reads on only when asked for the next. A peer that sends
//! what nobody asked for is caught at the first such line
//! ([`crate::slot`] ends the connection as a protocol failure), and a line
//! that never ends is caught at the framer's limit,
//! [`MAX_LINE`](testbed::framing::MAX_LINE) bytes. So the socket is still
//! read until it is empty, as edge triggering requires, but only as fast as
//! the conversation takes the lines.
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
///
/// # Example
///
/// One `GET` to the slow server, driven by hand with a [`Selector`]: the
/// request is queued at once, leaves when the handshake's event says
/// "writable", and the reply comes back in however many events it takes.
/// (A [`Slot`] does this for a pool.)
///
/// ```
/// use std::time::Duration;
///
/// use select::connection::Connection;
/// use select::event::Token;
/// use select::{Backend, Selector};
/// use testbed::latency::LatencyModel;
/// use testbed::protocol::{Reply, Request};
/// use testbed::server::{ServerConfig, SlowServer};
/// use testbed::workload::items;
///
/// let server = SlowServer::spawn(ServerConfig {
///     latency: LatencyModel::Fixed(Duration::from_millis(1)),
///     ..ServerConfig::default()
/// })?;
/// let item = items(1, 1).remove(0);
///
/// let mut conn = Connection::connect(server.addr())?;
/// conn.send_line(&Request::Get(item.id, item.payload.clone()))?;
/// let mut selector = Selector::new(Backend::Epoll)?;
/// let mut watching = conn.interest(); // "writable": the handshake's end
/// selector.add(conn.fd(), Token::new(0), watching)?;
///
/// let mut events = Vec::new();
/// let reply = loop {
///     selector.wait(&mut events, Some(Duration::from_secs(5)))?;
///     assert!(!events.is_empty(), "the server answers within 5 s");
///     for event in &events {
///         conn.on_ready(event)?;
///     }
///     if let Some(reply) = conn.next_reply()? {
///         break reply;
///     }
///     // Connected and sent: from now on, watch for the reply.
///     if conn.interest() != watching {
///         watching = conn.interest();
///         selector.modify(conn.fd(), Token::new(0), watching)?;
///     }
/// };
/// assert_eq!(reply, Reply::Success(item.expected_result()));
/// selector.delete(conn.fd())?; // before the descriptor is closed
/// server.shutdown();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`Selector`]: crate::Selector
/// [`Slot`]: crate::slot::Slot
///
/// # Memory
///
/// The read side holds at most one read's worth of bytes ([`READ_CHUNK`])
/// plus one partial line (under [`MAX_LINE`](testbed::framing::MAX_LINE)),
/// whatever the peer sends: the socket is read only while no complete line
/// waits to be taken (see the module's docs). [`buffered`](Self::buffered)
/// says how much it holds.
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
    /// A readable event came, and no read since has shown the socket
    /// empty: bytes may still wait there, and under edge triggering no
    /// event will say so. [`next_reply`](Self::next_reply) reads on.
    unread: bool,
    /// An event said the peer closed its side: read on to the end of the
    /// stream even after a short read (see [`nonblocking::drained`]).
    peer_closed: bool,
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
            unread: false,
            peer_closed: false,
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
    /// what is queued, reads until a complete line is there (or the socket
    /// is empty). Never blocks. The lines are then taken with
    /// [`next_reply`](Self::next_reply), which reads the rest.
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
            self.unread = true;
            self.peer_closed |= event.closed;
            self.fill()?;
        }
        Ok(())
    }

    /// Reads until the framer has something to hand out (a complete line,
    /// or the framing error that ends the stream), or until the socket is
    /// empty: `WouldBlock`, the end of the stream, or the shortcut
    /// [`nonblocking::drained`] (a short read emptied the socket, so skip
    /// the read that would only say `WouldBlock`, unless the peer closed:
    /// then only reading on finds the close, which no event will report).
    ///
    /// Stopping at the first complete line is what keeps the memory and
    /// the work of one event bounded; `unread` remembers that the socket
    /// may still hold bytes, so that the next call goes on from there.
    fn fill(&mut self) -> io::Result<()> {
        while self.unread && !self.framer.has_next() {
            match self.framer.read_from(&mut self.stream) {
                Ok(0) => {
                    self.eof = true;
                    self.unread = false;
                }
                Ok(n) => {
                    self.bytes_read += n as u64;
                    if nonblocking::drained(n, READ_CHUNK, self.peer_closed) {
                        self.unread = false;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.unread = false,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
    // ANCHOR_END: on_ready

    /// Hands the socket what it takes of the outbox, and counts it.
    fn flush(&mut self) -> io::Result<()> {
        let written = self.outbox.flush_to(&mut self.stream)?;
        self.bytes_written += written as u64;
        Ok(())
    }

    /// Checks whether the handshake is over (the rule is
    /// [`nonblocking::connect_finished`]'s): `Ok(true)` when connected,
    /// `Ok(false)` when still in progress, the connect's error otherwise.
    /// [`on_ready`](Self::on_ready) calls it; a caller that watches the
    /// handshake alone (stage 5 keeps a connection out of its pool until
    /// then) calls it when the socket reports writable.
    pub fn finish_connect(&mut self) -> io::Result<bool> {
        let done = nonblocking::connect_finished(&self.stream)?;
        self.connecting = !done;
        Ok(done)
    }

    /// The next complete reply, reading on from the socket if the last
    /// event left bytes there; `Ok(None)` means the socket is empty: wait
    /// for the next event. A line that breaks the framing or is not a reply
    /// is a [`ErrorKind::Protocol`] failure, and so is a read that fails.
    pub fn next_reply(&mut self) -> Result<Option<Reply>, Failure> {
        // The lines already read go first: read more only once they are
        // taken (see `# Memory`).
        self.fill().map_err(|e| Failure::from_io(&e))?;
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

    /// Bytes read and not yet taken as replies: what this connection holds
    /// in memory on the read side (see `# Memory` on [`Connection`]).
    pub fn buffered(&self) -> usize {
        self.framer.buffered()
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
