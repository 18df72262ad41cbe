//! Chapter 6, exercise 2: an echo server made of fibers and `io_wait`.
//!
//! [`scheduler::FiberTcpStream`] hides `io_wait` inside `Read` and `Write`.
//! Here you use it bare, the way the Ruby article's scheduler is used: try
//! the non-blocking call, and when it says `WouldBlock`, call `io_wait` and
//! try again. [`FiberListener::accept`] shows the pattern on a listening
//! socket; write [`echo`], which sends back every byte a client sends,
//! until the client closes.
//!
//! Each client is served by its own fiber, so a client that takes its time
//! holds up nobody: the tests check exactly that.
//!
//! One client fiber, one line there and back; the echo ends when the client
//! hangs up:
//!
//! ```
//! use std::io::{Read, Write};
//! use ch06_echo::{FiberListener, serve};
//! use scheduler::{FiberTcpStream, Scheduler};
//!
//! let sched = Scheduler::new()?;
//! let listener = FiberListener::bind(&sched, "127.0.0.1:0".parse()?)?;
//! let (addr, server, client) = (listener.local_addr()?, sched.clone(), sched.clone());
//! sched.spawn(move || serve(&server, &listener, 1))?;
//! let reply = sched.spawn(move || -> std::io::Result<Vec<u8>> {
//!     let mut stream = FiberTcpStream::connect(&client, addr)?;
//!     stream.write_all(b"hello\n")?;
//!     let mut back = vec![0; 6];
//!     stream.read_exact(&mut back).map(|()| back)
//! })?;
//! sched.run()?;
//! assert_eq!(reply.try_join().expect("the client finished")??, b"hello\n", "the client's line, back");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch06-echo");

use std::io::{self, Read, Write};
use std::net::SocketAddr;

use scheduler::{Direction, Registered, Scheduler};

/// How many bytes one read asks for.
const CHUNK: usize = 1024;

/// A listening socket whose `accept` waits in a fiber.
#[derive(Debug)]
pub struct FiberListener {
    sched: Scheduler,
    io: Registered<mio::net::TcpListener>,
}

impl FiberListener {
    /// Listens on `addr` (port 0: any free port).
    ///
    /// # Errors
    ///
    /// The socket could not be bound or registered.
    pub fn bind(sched: &Scheduler, addr: SocketAddr) -> io::Result<FiberListener> {
        let listener = mio::net::TcpListener::bind(addr)?;
        Ok(FiberListener {
            sched: sched.clone(),
            io: sched.register(listener)?,
        })
    }

    /// The address clients connect to.
    ///
    /// # Errors
    ///
    /// As `getsockname`.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// The next client, waiting in this fiber until one connects.
    ///
    /// # Errors
    ///
    /// `accept` failed, or it was called outside a fiber.
    pub fn accept(&self) -> io::Result<Registered<mio::net::TcpStream>> {
        loop {
            match self.io.get_ref().accept() {
                Ok((stream, _peer)) => return self.sched.register(stream),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.io.wait(Direction::Readable, None)?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

// ANCHOR: exercise
/// Sends back everything the client sends, until it closes its side;
/// returns how many bytes were echoed.
///
/// # Errors
///
/// A read or write failed, or it was called outside a fiber.
pub fn echo(mut conn: Registered<mio::net::TcpStream>) -> io::Result<u64> {
    let mut buf = [0u8; CHUNK];
    let mut echoed = 0;
    // TODO: what do you do when a read or a write says WouldBlock, and how do you know the client is finished?
    todo!("what do you do when a read or a write says WouldBlock, and how do you know the client is finished?")
}
// ANCHOR_END: exercise

/// Accepts `clients` clients, one after the other, and serves each in its
/// own fiber.
///
/// # Errors
///
/// An `accept` or a spawn failed.
pub fn serve(sched: &Scheduler, listener: &FiberListener, clients: usize) -> io::Result<()> {
    for _ in 0..clients {
        let conn = listener.accept()?;
        sched.spawn(move || echo(conn))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
