//! Waiting for sockets: [`Registered`] sockets, and
//! [`Scheduler::io_wait`], which suspends a fiber until its socket is ready.
//!
//! The source article registers a socket with its selector on every `io_wait` and
//! deregisters it when the fiber resumes: two extra system calls per wait,
//! and a second fiber waiting on the same socket (one to read, one to
//! write) silently replaces the first in its table. Here a socket is
//! registered once, for both directions, when it is wrapped in
//! [`Registered`], and deregistered when that is dropped. The reactor keeps
//! one waiting fiber per direction and refuses a second.
//!
//! This is the reactor (`reactor.rs`, which knows sockets but not fibers)
//! joined to the core (`scheduler.rs`, which knows fibers but not sockets):
//! `io_wait` gives the reactor the fiber's wake ticket, then blocks on it.
//!
//! # Edge-triggered
//!
//! Call `io_wait` only after the operation said `WouldBlock`; an edge that
//! came while nobody waited makes it return at once. Readiness is a hint:
//! after `io_wait` returns, the read may still say `WouldBlock`, and the
//! caller loops (as [`crate::FiberTcpStream`] does). See `reactor.rs`.
//!
//! Not here: sleeping in `poll` (the loop in `scheduler.rs`), the table of
//! sockets (`reactor.rs`).

use std::fmt;
use std::io;
use std::time::Duration;

use crate::reactor::{Armed, Direction, SourceKey};
use crate::scheduler::{Scheduler, Woken};

/// A socket (or any mio event source) registered with a scheduler's
/// reactor, for [`Scheduler::io_wait`]. Dropping it deregisters it.
pub struct Registered<S: mio::event::Source> {
    sched: Scheduler,
    key: SourceKey,
    source: S,
}

impl<S: mio::event::Source> Registered<S> {
    /// The wrapped source.
    pub fn get_ref(&self) -> &S {
        &self.source
    }

    /// The wrapped source, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.source
    }

    /// The peer has closed its side (an event said so). A short read does
    /// not mean "drained" then: only reading on finds the end of the
    /// stream, which no later event will announce.
    pub fn peer_closed(&self) -> bool {
        self.sched.reactor().peer_closed(self.key)
    }

    /// Waits until the source may be ready: `sched.io_wait(self, ...)`.
    ///
    /// # Errors
    ///
    /// As [`Scheduler::io_wait`].
    pub fn wait(&self, direction: Direction, timeout: Option<Duration>) -> io::Result<()> {
        self.sched.io_wait(self, direction, timeout)
    }
}

impl<S: mio::event::Source> Drop for Registered<S> {
    fn drop(&mut self) {
        // Deregister before the socket closes (its field drops after this).
        self.sched.reactor().deregister(self.key, &mut self.source);
    }
}

impl<S: mio::event::Source + fmt::Debug> fmt::Debug for Registered<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registered")
            .field("key", &self.key)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl Scheduler {
    /// Registers `source` with the reactor, for both directions, so fibers
    /// can [`io_wait`](Self::io_wait) on it.
    ///
    /// # Errors
    ///
    /// `epoll_ctl` refused the source.
    pub fn register<S: mio::event::Source>(&self, mut source: S) -> io::Result<Registered<S>> {
        let key = self.reactor().register(&mut source)?;
        Ok(Registered {
            sched: self.clone(),
            key,
            source,
        })
    }

    // ANCHOR: io_wait
    /// Suspends this fiber until `io` may be ready in `direction`, or
    /// `timeout` passes (the source article's `io_wait`). Call it after the operation
    /// returned `WouldBlock`; see the module docs.
    ///
    /// # Errors
    ///
    /// - `TimedOut` when the timeout passed first;
    /// - `Other` outside a fiber, or when another fiber already waits on
    ///   `io` in the same direction.
    pub fn io_wait<S: mio::event::Source>(
        &self,
        io: &Registered<S>,
        direction: Direction,
        timeout: Option<Duration>,
    ) -> io::Result<()> {
        if self.current().is_none() {
            return Err(io::Error::other(
                "io_wait outside a fiber would block the thread",
            ));
        }
        let ticket = self.ticket();
        let armed = self
            .reactor()
            .arm(io.key, direction, ticket, |old| self.is_waiting(old));
        match armed {
            Armed::Ready => return Ok(()),
            Armed::Busy => {
                return Err(io::Error::other(format!(
                    "another fiber already waits for this socket to be {direction:?}"
                )));
            }
            Armed::Waiting => {}
        }
        match self.block_on_io(ticket, timeout) {
            Woken::TimedOut => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("not {direction:?} within {timeout:?}"),
            )),
            Woken::Unblocked => Ok(()),
        }
    }
    // ANCHOR_END: io_wait
}
