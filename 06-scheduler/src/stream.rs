//! [`FiberTcpStream`]: a TCP stream that looks blocking to the fiber using
//! it, and lets the other fibers run while it waits.
//!
//! This is the Ruby article's first point made in Rust: synchronous and
//! asynchronous code look the same. The socket underneath is non-blocking;
//! when a `read` or `write` would block, the stream calls
//! [`Scheduler::io_wait`], which suspends *this fiber* until the socket is
//! ready, then tries again. To its caller, `read` simply took a while. So
//! it implements `std::io::Read` and `Write`, and 01-sync's request
//! function, written for a blocking `std::net::TcpStream`, runs over it
//! unchanged (see `stage.rs`).
//!
//! # The read timeout
//!
//! With a read timeout, each wait for data gives up after that long, and
//! `read` returns `TimedOut`, just as a blocking socket with
//! `set_read_timeout` returns `WouldBlock`; `Failure::from_io` makes either
//! one an item failed with `timeout`. Like stage 5's, it bounds each wait,
//! not the whole request.
//!
//! The connect has its own bound, [`FiberTcpStream::connect_timeout`], for
//! the whole handshake: a server that drops SYNs never answers at all.
//!
//! # Shared
//!
//! Like `std::net::TcpStream`, a shared `&FiberTcpStream` reads and writes
//! too, so one fiber can read while another writes (the reactor keeps one
//! waiting fiber per direction). Two fibers reading at once get an error
//! from `io_wait` rather than a lost wake-up.
//!
//! Not here: the waiting itself (`io.rs`), the request (01-sync).

use std::cell::Cell;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use select::nonblocking;

use crate::io::Registered;
use crate::reactor::Direction;
use crate::scheduler::Scheduler;

/// A fiber-aware TCP connection.
///
/// # Examples
///
/// 01-sync's request, unchanged, in a fiber, against a slow server on
/// loopback:
///
/// ```
/// use std::time::Duration;
///
/// use scheduler::{FiberTcpStream, Scheduler};
/// use testbed::conn::Conn;
/// use testbed::protocol::{Phases, ResultHash};
/// use testbed::server::{ServerConfig, SlowServer};
/// use testbed::workload;
///
/// let server = SlowServer::spawn(ServerConfig::default())?;
/// let addr = server.addr();
/// let item = workload::items(1, 7).remove(0);
/// let expected = ResultHash::of(item.id, &item.payload);
///
/// let sched = Scheduler::new()?;
/// let sched2 = sched.clone();
/// let request = sched.spawn(move || -> std::io::Result<_> {
///     let timeout = Duration::from_secs(5);
///     let stream = FiberTcpStream::connect_timeout(&sched2, addr, timeout)?;
///     let mut conn = Conn::new(stream);
///     // Suspends this fiber, not the thread, while the server thinks.
///     Ok(sync::request(&mut conn, &item, Phases::Two))
/// })?;
/// sched.run()?;
/// let outcome = request.try_join().expect("the fiber finished")??;
/// assert_eq!(outcome, Ok(expected));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FiberTcpStream {
    io: Registered<mio::net::TcpStream>,
    read_timeout: Option<Duration>,
    /// The last read returned less than it asked for: the socket was
    /// emptied, so the next read waits first instead of trying a read that
    /// would only say `WouldBlock`.
    drained: Cell<bool>,
}

impl FiberTcpStream {
    /// Connects to `addr` without blocking the thread, waiting (in this
    /// fiber) for as long as the handshake takes, like
    /// `std::net::TcpStream::connect`. A server that drops SYNs makes that
    /// the kernel's own limit, about two minutes: prefer
    /// [`connect_timeout`](Self::connect_timeout).
    ///
    /// # Errors
    ///
    /// The connect failed (`ConnectionRefused`...), or it was called
    /// outside a fiber.
    pub fn connect(sched: &Scheduler, addr: SocketAddr) -> io::Result<FiberTcpStream> {
        FiberTcpStream::connect_until(sched, addr, None)
    }

    // ANCHOR: connect
    /// Connects to `addr` without blocking the thread, giving up after
    /// `timeout`, like `std::net::TcpStream::connect_timeout`: starts a
    /// non-blocking connect, then waits (in this fiber) until the socket is
    /// writable, which is how the kernel says the handshake finished, one
    /// way or the other.
    ///
    /// # Errors
    ///
    /// - `TimedOut` when the handshake has not finished within `timeout`;
    /// - `InvalidInput` for a zero `timeout` (as `std` does);
    /// - the connect's own failure (`ConnectionRefused`...), or `Other`
    ///   outside a fiber.
    pub fn connect_timeout(
        sched: &Scheduler,
        addr: SocketAddr,
        timeout: Duration,
    ) -> io::Result<FiberTcpStream> {
        if timeout.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "cannot connect with a zero timeout",
            ));
        }
        FiberTcpStream::connect_until(sched, addr, Some(Instant::now() + timeout))
    }

    /// The connect itself: waits for the handshake until `deadline`, if any.
    fn connect_until(
        sched: &Scheduler,
        addr: SocketAddr,
        deadline: Option<Instant>,
    ) -> io::Result<FiberTcpStream> {
        let io = sched.register(mio::net::TcpStream::connect(addr)?)?;
        // "Writable" means the handshake is over, one way or the other;
        // stage 4's rule says which (and turns Nagle off once connected).
        // Readiness is only a hint, so "still connecting" waits again, for
        // what is left of the time.
        loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            match io.wait(Direction::Writable, left) {
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("connecting to {addr}: no handshake within the connect timeout"),
                    ));
                }
                result => result?,
            }
            if nonblocking::connect_finished(io.get_ref())? {
                break;
            }
        }
        Ok(FiberTcpStream {
            io,
            read_timeout: None,
            drained: Cell::new(false),
        })
    }
    // ANCHOR_END: connect

    /// Makes each read give up with `TimedOut` after `timeout` without data
    /// (`None`: wait forever), like `TcpStream::set_read_timeout`.
    pub fn set_read_timeout(&mut self, timeout: Option<Duration>) {
        self.read_timeout = timeout;
    }

    /// The read timeout.
    pub fn read_timeout(&self) -> Option<Duration> {
        self.read_timeout
    }
}

// ANCHOR: read
impl Read for &FiberTcpStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.drained.get() {
                // Nothing to read until the next edge: let the other fibers
                // run until data comes (or the read timeout passes).
                self.io.wait(Direction::Readable, self.read_timeout)?;
                self.drained.set(false);
            }
            match self.io.get_ref().read(buf) {
                Ok(n) => {
                    // Stage 4's rule: a short read took everything there
                    // was, so skip the next `read`, which would only say
                    // `WouldBlock` — unless the peer closed, when reading
                    // on is how the end of the stream is found.
                    let closed = self.io.peer_closed();
                    self.drained.set(nonblocking::drained(n, buf.len(), closed));
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.drained.set(true),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl Write for &FiberTcpStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match self.io.get_ref().write(buf) {
                // The send buffer is full: wait until the peer reads.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.io.wait(Direction::Writable, None)?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                result => return result,
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        // Nothing is buffered here: every write went to the kernel.
        Ok(())
    }
}
// ANCHOR_END: read

// `Conn` owns its stream, so it needs the owned forms; they are the shared
// ones. (Like `std::net::TcpStream`, a shared `&FiberTcpStream` reads and
// writes too, so one fiber can read while another writes.)
impl Read for FiberTcpStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self).read(buf)
    }
}

impl Write for FiberTcpStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&*self).write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        (&*self).flush()
    }
}
