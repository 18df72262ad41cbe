//! The reactor: sockets registered with `epoll` (through mio), and
//! [`Scheduler::io_wait`], which suspends a fiber until its socket is ready.
//!
//! The seed registers a socket with its selector on every `io_wait` and
//! deregisters it when the fiber resumes: two extra system calls per wait,
//! and a second fiber waiting on the same socket (one to read, one to
//! write) silently replaces the first in its table. Here a socket is
//! registered once, for both directions, when it is wrapped in
//! [`Registered`], and deregistered when that is dropped. The table keeps
//! one waiting fiber per direction.
//!
//! # Edge-triggered
//!
//! mio registers sockets *edge-triggered*: `epoll` reports a socket when it
//! becomes ready, not for as long as it stays ready. So the rule is: call
//! `io_wait` only after the operation said `WouldBlock`. An edge that
//! arrives while nobody waits is remembered ([`Source`]'s `readable` and
//! `writable`) so that the next `io_wait` returns at once instead of
//! waiting for an edge that already came. Readiness is a hint: after
//! `io_wait` returns, the read may still say `WouldBlock`, and the caller
//! loops (as [`crate::FiberTcpStream`] does).
//!
//! Not here: sleeping in `poll` (the loop in `scheduler.rs`).

use std::fmt;
use std::io;
use std::time::Duration;

use mio::Token;
use mio::event::Event;

use crate::scheduler::{Resume, Scheduler, State, Ticket, WaitOn};

/// The direction a fiber waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interest {
    /// Data to read, or the peer closed.
    Readable,
    /// Room to write.
    Writable,
}

/// What the reactor knows about one registered socket.
#[derive(Debug, Default)]
pub(crate) struct Source {
    /// An edge arrived that no one was waiting for.
    readable: bool,
    writable: bool,
    /// The peer has closed its side. Unlike an edge this never clears: the
    /// data and the close can arrive in one event, and a reader must still
    /// find the end of the stream instead of waiting for an edge that will
    /// never come (stage 4's `nonblocking::drained` rule; see
    /// [`Registered::peer_closed`]).
    read_closed: bool,
    /// The fiber waiting to read, and the one waiting to write.
    reader: Option<Ticket>,
    writer: Option<Ticket>,
}

impl Source {
    /// Forgets `ticket` if it is the waiter for `interest` (its wait ended
    /// another way: a timeout).
    pub(crate) fn forget(&mut self, interest: Interest, ticket: Ticket) {
        let waiter = match interest {
            Interest::Readable => &mut self.reader,
            Interest::Writable => &mut self.writer,
        };
        if *waiter == Some(ticket) {
            *waiter = None;
        }
    }
}

/// A socket (or any mio event source) registered with a scheduler's
/// reactor, for [`Scheduler::io_wait`]. Dropping it deregisters it.
pub struct Registered<S: mio::event::Source> {
    sched: Scheduler,
    token: usize,
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
        let state = self.sched.inner.state.borrow();
        state.sources[self.token]
            .as_ref()
            .is_some_and(|source| source.read_closed)
    }

    /// Waits until the source may be ready: `sched.io_wait(self, ...)`.
    ///
    /// # Errors
    ///
    /// As [`Scheduler::io_wait`].
    pub fn wait(&self, interest: Interest, timeout: Option<Duration>) -> io::Result<()> {
        self.sched.io_wait(self, interest, timeout)
    }
}

impl<S: mio::event::Source> Drop for Registered<S> {
    fn drop(&mut self) {
        // Deregister before the socket closes (its field drops after this):
        // the slot then never sees an event of a closed socket. A failure
        // here can only mean the socket is already gone from epoll.
        let _ = self.sched.inner.registry.deregister(&mut self.source);
        let mut state = self.sched.inner.state.borrow_mut();
        if let Some(slot) = state.sources.get_mut(self.token) {
            *slot = None;
            state.free_sources.push(self.token);
        }
    }
}

impl<S: mio::event::Source + fmt::Debug> fmt::Debug for Registered<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registered")
            .field("token", &self.token)
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
        let mut state = self.inner.state.borrow_mut();
        let token = match state.free_sources.pop() {
            Some(token) => token,
            None => {
                state.sources.push(None);
                state.sources.len() - 1
            }
        };
        let interests = mio::Interest::READABLE | mio::Interest::WRITABLE;
        if let Err(e) = self
            .inner
            .registry
            .register(&mut source, Token(token), interests)
        {
            state.free_sources.push(token);
            return Err(e);
        }
        state.sources[token] = Some(Source::default());
        Ok(Registered {
            sched: self.clone(),
            token,
            source,
        })
    }

    // ANCHOR: io_wait
    /// Suspends this fiber until `io` may be ready for `interest`, or
    /// `timeout` passes (the seed's `io_wait`). Call it after the operation
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
        interest: Interest,
        timeout: Option<Duration>,
    ) -> io::Result<()> {
        let Some(fiber) = self.current() else {
            return Err(io::Error::other(
                "io_wait outside a fiber would block the thread",
            ));
        };
        {
            let mut state = self.inner.state.borrow_mut();
            let ticket = state.next_ticket(fiber);
            let source = state.sources[io.token]
                .as_mut()
                .expect("a Registered's source is in the table until it drops");
            let (ready, waiter) = match interest {
                Interest::Readable => (&mut source.readable, &mut source.reader),
                Interest::Writable => (&mut source.writable, &mut source.writer),
            };
            // An edge came while nobody waited: the caller should try again
            // rather than wait for an edge that already passed.
            if std::mem::take(ready) {
                return Ok(());
            }
            if interest == Interest::Readable && source.read_closed {
                return Ok(());
            }
            if waiter.is_some() {
                return Err(io::Error::other(format!(
                    "another fiber already waits for this socket to be {interest:?}"
                )));
            }
            *waiter = Some(ticket);
        }
        let source = io.token;
        match self.wait(WaitOn::Io { source, interest }, timeout) {
            Resume::TimedOut => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("not {interest:?} within {timeout:?}"),
            )),
            _ => Ok(()),
        }
    }
    // ANCHOR_END: io_wait
}

impl State {
    // ANCHOR: dispatch
    /// Handles one readiness event from `poll`: wakes the fiber waiting for
    /// that direction, or remembers the edge for the next `io_wait`.
    pub(crate) fn dispatch(&mut self, event: &Event) {
        // A hang-up or a socket error counts as ready both ways: the next
        // read or write will return it, which is how the fiber learns.
        let failed = event.is_error();
        let readable = event.is_readable() || event.is_read_closed() || failed;
        let writable = event.is_writable() || event.is_write_closed() || failed;
        let Some(Some(source)) = self.sources.get_mut(event.token().0) else {
            return;
        };
        source.read_closed |= event.is_read_closed() || failed;
        let mut wake = [None, None];
        if readable {
            match source.reader.take() {
                Some(ticket) => wake[0] = Some(ticket),
                None => source.readable = true,
            }
        }
        if writable {
            match source.writer.take() {
                Some(ticket) => wake[1] = Some(ticket),
                None => source.writable = true,
            }
        }
        for ticket in wake.into_iter().flatten() {
            self.wake(ticket, Resume::Io);
        }
    }
    // ANCHOR_END: dispatch
}
