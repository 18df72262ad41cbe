//! The reactor: the `epoll` instance (through mio) that the scheduler's
//! loop sleeps in, and what it knows about each registered socket.
//!
//! It knows nothing about fibers. A waiter is whatever the owner says it
//! is (the scheduler uses its [`WakeTicket`](crate::WakeTicket)s); the
//! reactor stores at most one per socket and direction, and when `poll`
//! reports the socket ready, hands it back to the owner to wake. That is
//! why the scheduler can own one without the reactor knowing the
//! scheduler: the dependency goes one way.
//!
//! # Edge-triggered
//!
//! mio registers sockets *edge-triggered*: `epoll` reports a socket when it
//! becomes ready, not for as long as it stays ready. So the rule is: wait
//! only after the operation said `WouldBlock`. An edge that arrives while
//! nobody waits is remembered ([`Source`]'s `readable` and `writable`), so
//! that the next wait returns at once instead of waiting for an edge that
//! already came. Readiness is a hint: after a wait returns, the read may
//! still say `WouldBlock`, and the caller loops.
//!
//! # Stale waiters
//!
//! A wait can end without its socket: its timeout fires first. The reactor
//! is not told. The waiter it still holds is *stale*, and it finds out in
//! two places: when an edge comes, the owner's wake says "that wait is
//! over", and the edge is remembered as if nobody waited; when a new waiter
//! arrives, the owner's `is_waiting` says the old one is gone, and the new
//! one takes its place.
//!
//! Not here: suspending a fiber on a socket (`io.rs`), sleeping until a
//! timer (the loop in `scheduler.rs` passes `poll` its timeout).

use std::io;
use std::time::Duration;

use mio::event::Event;
use mio::{Events, Interest, Poll, Token, Waker};

/// The token of the [`Waker`] that other threads use to interrupt `poll`.
/// Sockets get tokens from 0 up (their index in the source table), so the
/// largest value can never collide with one.
const WAKER_TOKEN: Token = Token(usize::MAX);

/// How many readiness events one `poll` can return. More ready sockets than
/// this are not lost: the next `poll` returns the rest.
const EVENTS_CAPACITY: usize = 1024;

/// The direction of a socket a fiber waits for.
///
/// (Not stage 4's `select::event::Interest`, which is a set of directions a
/// selector watches; a fiber waits for one direction at a time.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Data to read, or the peer closed.
    Readable,
    /// Room to write.
    Writable,
}

/// Names one registered socket in the reactor's table (its mio token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SourceKey(usize);

/// What a new waiter found when it asked to wait ([`Reactor::arm`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Armed {
    /// An edge came while nobody waited, or the peer has closed (for
    /// reading): try the operation again instead of waiting.
    Ready,
    /// The waiter is stored: the next edge in that direction wakes it.
    Waiting,
    /// Another waiter, still waiting, has that direction.
    Busy,
}

/// What the reactor knows about one registered socket.
#[derive(Debug)]
struct Source<W> {
    /// An edge arrived that no one was waiting for.
    readable: bool,
    writable: bool,
    /// The peer has closed its side. Unlike an edge this never clears: the
    /// data and the close can arrive in one event, and a reader must still
    /// find the end of the stream instead of waiting for an edge that will
    /// never come (stage 4's `nonblocking::drained` rule).
    read_closed: bool,
    /// The waiter for each direction (perhaps stale: see the module docs).
    reader: Option<W>,
    writer: Option<W>,
}

impl<W> Default for Source<W> {
    fn default() -> Self {
        Source {
            readable: false,
            writable: false,
            read_closed: false,
            reader: None,
            writer: None,
        }
    }
}

/// The `epoll` instance and the table of registered sockets. `W` names a
/// waiter; it is copied in and handed back, never looked into.
pub(crate) struct Reactor<W> {
    poll: Poll,
    events: Events,
    /// By token; `None` for a free slot.
    sources: Vec<Option<Source<W>>>,
    free: Vec<usize>,
}

impl<W: Copy> Reactor<W> {
    /// A reactor with no socket, and the [`Waker`] that interrupts its
    /// `poll` from another thread (mio allows one per `Poll`).
    ///
    /// # Errors
    ///
    /// Creating the `epoll` instance or the waker's `eventfd` failed.
    pub(crate) fn new() -> io::Result<(Reactor<W>, Waker)> {
        let poll = Poll::new()?;
        let waker = Waker::new(poll.registry(), WAKER_TOKEN)?;
        let reactor = Reactor {
            poll,
            events: Events::with_capacity(EVENTS_CAPACITY),
            sources: Vec::new(),
            free: Vec::new(),
        };
        Ok((reactor, waker))
    }

    /// Registers `source` for both directions, once for its whole life:
    /// the source article registers on every wait and deregisters on every wake-up,
    /// two system calls per wait.
    ///
    /// # Errors
    ///
    /// `epoll_ctl` refused the source.
    pub(crate) fn register(
        &mut self,
        source: &mut impl mio::event::Source,
    ) -> io::Result<SourceKey> {
        let token = match self.free.pop() {
            Some(token) => token,
            None => {
                self.sources.push(None);
                self.sources.len() - 1
            }
        };
        let both = Interest::READABLE | Interest::WRITABLE;
        if let Err(e) = self.poll.registry().register(source, Token(token), both) {
            self.free.push(token);
            return Err(e);
        }
        self.sources[token] = Some(Source::default());
        Ok(SourceKey(token))
    }

    /// Forgets `source`, before it closes: its slot then never sees an
    /// event of a closed socket (or of the next socket to get the number).
    pub(crate) fn deregister(&mut self, key: SourceKey, source: &mut impl mio::event::Source) {
        // A failure can only mean the socket is already gone from epoll.
        let _ = self.poll.registry().deregister(source);
        if let Some(slot) = self.sources.get_mut(key.0) {
            *slot = None;
            self.free.push(key.0);
        }
    }

    /// Has the peer closed its side (an event said so)?
    pub(crate) fn peer_closed(&self, key: SourceKey) -> bool {
        self.sources[key.0]
            .as_ref()
            .is_some_and(|source| source.read_closed)
    }

    /// Makes `waiter` the one to wake at the next edge in `direction`,
    /// unless an edge already came ([`Armed::Ready`]) or a waiter that
    /// `is_waiting` says is still waiting has it ([`Armed::Busy`]).
    pub(crate) fn arm(
        &mut self,
        key: SourceKey,
        direction: Direction,
        waiter: W,
        is_waiting: impl Fn(W) -> bool,
    ) -> Armed {
        let source = self.sources[key.0]
            .as_mut()
            .expect("a registered source is in the table until it is deregistered");
        let (ready, slot) = match direction {
            Direction::Readable => (&mut source.readable, &mut source.reader),
            Direction::Writable => (&mut source.writable, &mut source.writer),
        };
        // An edge came while nobody waited: the caller should try again
        // rather than wait for an edge that already passed.
        if std::mem::take(ready) {
            return Armed::Ready;
        }
        if direction == Direction::Readable && source.read_closed {
            return Armed::Ready;
        }
        if slot.is_some_and(is_waiting) {
            return Armed::Busy;
        }
        *slot = Some(waiter);
        Armed::Waiting
    }

    /// Sleeps in `epoll_wait` for at most `timeout` (`None`: until an
    /// event), then hands every waiter whose socket is ready to `wake`,
    /// which says whether that wait was still in progress.
    ///
    /// # Errors
    ///
    /// `epoll_wait` failed (other than by a signal, which only ends the
    /// sleep early).
    pub(crate) fn poll(
        &mut self,
        timeout: Option<Duration>,
        mut wake: impl FnMut(W) -> bool,
    ) -> io::Result<()> {
        match self.poll.poll(&mut self.events, timeout) {
            Ok(()) => {}
            // A signal interrupted the sleep: nothing happened, and the
            // loop will work the timeout out again.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(()),
            Err(e) => return Err(e),
        }
        for event in self.events.iter() {
            // The waker's event only interrupts the sleep: the loop then
            // takes the remote unblocks from their channel.
            if event.token() != WAKER_TOKEN {
                dispatch(&mut self.sources, event, &mut wake);
            }
        }
        Ok(())
    }
}

// ANCHOR: dispatch
/// Handles one readiness event: wakes the waiter for each direction that
/// became ready, or remembers the edge for the next wait when there is no
/// waiter or its wait is already over.
fn dispatch<W: Copy>(
    sources: &mut [Option<Source<W>>],
    event: &Event,
    wake: &mut impl FnMut(W) -> bool,
) {
    // A hang-up or a socket error counts as ready both ways: the next read
    // or write will return it, which is how the fiber learns.
    let failed = event.is_error();
    let readable = event.is_readable() || event.is_read_closed() || failed;
    let writable = event.is_writable() || event.is_write_closed() || failed;
    let Some(Some(source)) = sources.get_mut(event.token().0) else {
        return;
    };
    source.read_closed |= event.is_read_closed() || failed;
    if readable && !source.reader.take().is_some_and(&mut *wake) {
        source.readable = true;
    }
    if writable && !source.writer.take().is_some_and(&mut *wake) {
        source.writable = true;
    }
}
// ANCHOR_END: dispatch
