//! [`AsyncConn`]: one SLOW/1 connection whose reads and writes are futures.
//!
//! The same three rules as stage 4's `Connection`, now inside `poll`:
//!
//! - **Read what is there, never "a line".** [`AsyncConn::recv`] reads
//!   into testbed's [`LineFramer`] until a whole line is there, parking on
//!   the reactor when the socket says `WouldBlock`; half a line just waits
//!   in the framer for the next poll. A short read proves the socket empty
//!   (stage 4's `nonblocking::drained`), so the next poll parks without the
//!   read that would only say `WouldBlock`, unless the peer has closed.
//! - **Write what fits, keep the rest.** [`AsyncConn::send`] returns a
//!   future that owns the line and how much of it the socket took.
//! - **`connect` returns at once.** [`AsyncConn::connect`] waits until the
//!   socket is writable and then asks `nonblocking::connect_finished`.
//!
//! # Poisoned: the state a cancelled request leaves behind
//!
//! A request is a conversation: `HEAD`, wait, `OK`, `BODY`, wait, `200`.
//! Drop the future that runs it between two of those (a timeout fired)
//! and the connection is in a state nobody knows: the server may still
//! answer the `HEAD`, and the next request on this connection would read
//! that late answer as its own. [`AsyncConn::begin`] returns an
//! [`InFlight`] guard for the length of one conversation; dropped without
//! [`InFlight::end`] (the future holding it was dropped), it **poisons** the
//! connection, and [`AsyncConn::is_reusable`] says no from then on.
//!
//! Not here: the conversation itself (`request.rs`), the reactor
//! (`reactor.rs`).

use std::future::{Future, poll_fn};
use std::io::{self, Write};
use std::net::SocketAddr;
use std::ops::{Deref, DerefMut};
use std::os::fd::AsFd;
use std::pin::Pin;
use std::task::{Context, Poll};

use mio::net::TcpStream;
use select::nonblocking;
use testbed::framing::{LineError, LineFramer, READ_CHUNK};
use testbed::outcome::{ErrorKind, Failure, Outcome};
use testbed::protocol::{Reply, Request};

use crate::handle::Handle;
use crate::reactor::{Direction, Park, SourceKey};

/// A non-blocking connection to a SLOW/1 server, registered with an
/// executor's reactor for as long as it lives.
///
/// # Examples
///
/// One `GET`, line by line, against an embedded server:
///
/// ```
/// use executor::{AsyncConn, Executor};
/// use testbed::protocol::{Reply, Request, ResultHash};
/// use testbed::server::{ServerConfig, SlowServer};
/// use testbed::workload::items;
///
/// let server = SlowServer::spawn(ServerConfig::default())?;
/// let executor = Executor::new()?;
/// let handle = executor.handle();
/// let item = items(1, 1).remove(0);
/// let (id, payload) = (item.id, item.payload.clone());
/// let reply = executor.block_on(async move {
///     let mut conn = AsyncConn::connect(&handle, server.addr()).await?;
///     conn.send(&Request::Get(id, payload)).await.map_err(std::io::Error::other)?;
///     conn.recv().await.map_err(std::io::Error::other)
/// })??;
/// assert_eq!(reply, Reply::Success(ResultHash::of(item.id, &item.payload)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncConn {
    handle: Handle,
    key: SourceKey,
    stream: TcpStream,
    framer: LineFramer,
    /// The last read proved the socket empty: park before reading again.
    drained: bool,
    /// The peer closed its side and every byte it sent has been read.
    eof: bool,
    /// A failure (closed, garbage, I/O error) broke the conversation.
    broken: bool,
    /// A conversation was abandoned in the middle (see the module docs).
    poisoned: bool,
}

impl AsyncConn {
    // ANCHOR: connect
    /// Connects to `addr`: the handshake runs while other tasks do, and
    /// this future is ready when it is over, one way or the other.
    ///
    /// # Errors
    ///
    /// The connect failed (`ConnectionRefused`...), or the socket could
    /// not be registered.
    pub async fn connect(handle: &Handle, addr: SocketAddr) -> io::Result<AsyncConn> {
        // Returns at once, the handshake under way (`EINPROGRESS`).
        let stream = TcpStream::connect(addr)?;
        let conn = AsyncConn::register(handle, stream)?;
        // The end of the handshake shows as "writable".
        poll_fn(|cx| {
            loop {
                match nonblocking::connect_finished(&conn.stream) {
                    Ok(true) => return Poll::Ready(Ok(())),
                    Ok(false) => match conn.park(Direction::Write, cx) {
                        Park::Retry => continue,
                        Park::Parked => return Poll::Pending,
                    },
                    Err(e) => return Poll::Ready(Err(e)),
                }
            }
        })
        .await?;
        conn.handle.progress();
        Ok(conn)
    }
    // ANCHOR_END: connect

    /// Wraps a stream that is already connected (tests, and callers that
    /// connect their own way).
    ///
    /// # Errors
    ///
    /// The socket options or the registration failed.
    pub fn from_std(handle: &Handle, stream: std::net::TcpStream) -> io::Result<AsyncConn> {
        stream.set_nonblocking(true)?;
        stream.set_nodelay(true)?;
        AsyncConn::register(handle, TcpStream::from_std(stream))
    }

    fn register(handle: &Handle, stream: TcpStream) -> io::Result<AsyncConn> {
        let key = handle.reactor().add(stream.as_fd())?;
        Ok(AsyncConn {
            handle: handle.clone(),
            key,
            stream,
            framer: LineFramer::new(),
            drained: false,
            eof: false,
            broken: false,
            poisoned: false,
        })
    }

    /// Sends one request line: a future, ready when the socket has taken
    /// all of it.
    pub fn send(&mut self, request: &Request) -> SendRequest<'_> {
        SendRequest {
            line: format!("{request}\n").into_bytes(),
            written: 0,
            conn: self,
            parked: false,
        }
    }

    /// Receives one reply: a future, ready when a whole line has arrived
    /// (or the connection failed).
    pub fn recv(&mut self) -> RecvReply<'_> {
        RecvReply {
            conn: self,
            parked: false,
        }
    }

    // ANCHOR: begin
    /// Starts a conversation: the guard poisons this connection unless it
    /// is ended with [`InFlight::end`].
    pub fn begin(&mut self) -> InFlight<'_> {
        InFlight {
            conn: self,
            ended: false,
        }
    }
    // ANCHOR_END: begin

    /// Can it carry another request? Not after a failure that broke it,
    /// nor after a conversation abandoned half-way.
    pub fn is_reusable(&self) -> bool {
        !self.broken && !self.poisoned
    }

    /// Did a failure break it (a close, garbage, an I/O error)?
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// Was a conversation on it abandoned half-way?
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    /// The socket's local address (tests match it with the server's side).
    ///
    /// # Errors
    ///
    /// As `getsockname`.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.stream.local_addr()
    }

    /// Parks this task on the reactor for `direction`.
    fn park(&self, direction: Direction, cx: &Context<'_>) -> Park {
        self.handle.reactor().park(self.key, direction, cx.waker())
    }

    // ANCHOR: poll_recv
    /// The body of [`RecvReply`]: a line if one is complete, else read
    /// until one is, or until the socket says "later" (`Pending`).
    fn poll_recv(&mut self, cx: &Context<'_>) -> Poll<Result<Reply, Failure>> {
        loop {
            match self.framer.next_line() {
                Ok(Some(line)) => return Poll::Ready(self.parse(&line)),
                Ok(None) => {}
                Err(e) => return Poll::Ready(Err(self.fail(LineError::from(e).into()))),
            }
            if self.eof {
                let failure = if self.framer.has_partial() {
                    LineError::EofMidLine.into()
                } else {
                    Failure::new(ErrorKind::Closed, "the server closed the connection")
                };
                return Poll::Ready(Err(self.fail(failure)));
            }
            if self.drained {
                match self.park(Direction::Read, cx) {
                    Park::Retry => self.drained = false,
                    Park::Parked => return Poll::Pending,
                }
            }
            match self.framer.read_from(&mut self.stream) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.handle.progress();
                    let closed = self.handle.reactor().peer_closed(self.key);
                    self.drained = nonblocking::drained(n, READ_CHUNK, closed);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.drained = true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(self.fail(Failure::from_io(&e)))),
            }
        }
    }
    // ANCHOR_END: poll_recv

    /// The body of [`SendRequest`]: writes from `line[*written..]` until all
    /// of it is taken or the socket is full (`Pending`).
    fn poll_send(
        &mut self,
        cx: &Context<'_>,
        line: &[u8],
        written: &mut usize,
    ) -> Poll<Result<(), Failure>> {
        while *written < line.len() {
            match (&self.stream).write(&line[*written..]) {
                Ok(0) => {
                    let e = io::Error::from(io::ErrorKind::WriteZero);
                    return Poll::Ready(Err(self.fail(Failure::from_io(&e))));
                }
                Ok(n) => {
                    *written += n;
                    self.handle.progress();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if self.park(Direction::Write, cx) == Park::Parked {
                        return Poll::Pending;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(self.fail(Failure::from_io(&e)))),
            }
        }
        Poll::Ready(Ok(()))
    }

    fn parse(&mut self, line: &str) -> Result<Reply, Failure> {
        Reply::parse(line)
            .map_err(|e| self.fail(Failure::new(ErrorKind::Protocol, format!("bad reply: {e}"))))
    }

    /// Marks the connection broken and passes `failure` on.
    fn fail(&mut self, failure: Failure) -> Failure {
        self.broken = true;
        failure
    }
}

impl Drop for AsyncConn {
    fn drop(&mut self) {
        // Out of epoll before the socket closes (the field drops after
        // this): a reused descriptor number must not inherit this key.
        self.handle.reactor().delete(self.key, self.stream.as_fd());
    }
}

impl std::fmt::Debug for AsyncConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncConn")
            .field("stream", &self.stream)
            .field("broken", &self.broken)
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

/// The future of [`AsyncConn::recv`].
pub struct RecvReply<'a> {
    conn: &'a mut AsyncConn,
    parked: bool,
}

impl Future for RecvReply<'_> {
    type Output = Result<Reply, Failure>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // A reference and a flag: `Unpin`.
        let this = self.get_mut();
        let polled = this.conn.poll_recv(cx);
        this.parked = polled.is_pending();
        if polled.is_ready() {
            // A reply, or the failure that ends the wait: something came.
            this.conn.handle.progress();
        }
        polled
    }
}

impl Drop for RecvReply<'_> {
    fn drop(&mut self) {
        // Dropped while parked (cancelled): take the waker back, or the
        // reactor would count a task waiting on this socket.
        if self.parked {
            self.conn
                .handle
                .reactor()
                .unpark(self.conn.key, Direction::Read);
        }
    }
}

/// The future of [`AsyncConn::send`].
pub struct SendRequest<'a> {
    conn: &'a mut AsyncConn,
    line: Vec<u8>,
    written: usize,
    parked: bool,
}

impl Future for SendRequest<'_> {
    type Output = Result<(), Failure>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let polled = this.conn.poll_send(cx, &this.line, &mut this.written);
        this.parked = polled.is_pending();
        polled
    }
}

impl Drop for SendRequest<'_> {
    fn drop(&mut self) {
        if self.parked {
            self.conn
                .handle
                .reactor()
                .unpark(self.conn.key, Direction::Write);
        }
        // Half a line on the wire: whatever comes next is garbage to the
        // server. No conversation can follow it.
        if 0 < self.written && self.written < self.line.len() {
            self.conn.poisoned = true;
        }
    }
}

// ANCHOR: in_flight
/// One conversation in progress on a connection. Derefs to the
/// connection. Dropped without [`end`](Self::end), which is what happens
/// when the future holding it is dropped mid-request, it poisons the
/// connection: the reply to what was sent may still be on its way.
pub struct InFlight<'a> {
    conn: &'a mut AsyncConn,
    ended: bool,
}

impl InFlight<'_> {
    /// The conversation is over, with this outcome: the connection stays
    /// reusable unless the outcome says it broke.
    pub fn end(mut self, outcome: &Outcome) {
        if matches!(outcome, Err(f) if f.kind.breaks_connection()) {
            self.conn.broken = true;
        }
        self.ended = true;
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if !self.ended {
            self.conn.poisoned = true;
        }
    }
}
// ANCHOR_END: in_flight

impl Deref for InFlight<'_> {
    type Target = AsyncConn;

    fn deref(&self) -> &AsyncConn {
        self.conn
    }
}

impl DerefMut for InFlight<'_> {
    fn deref_mut(&mut self) -> &mut AsyncConn {
        self.conn
    }
}
