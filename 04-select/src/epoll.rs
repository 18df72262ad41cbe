//! The modern backend: epoll, through mio.
//!
//! epoll turns the question around. Instead of handing the kernel the whole
//! list on every wait, the program registers each descriptor *once*
//! (`epoll_ctl`), the kernel keeps the list, and a socket that becomes
//! ready puts itself on a ready list. A wait (`epoll_wait`) returns only
//! that ready list: its cost grows with the number of *ready* descriptors,
//! not the number watched. That is why one thread can watch 10,000
//! connections.
//!
//! mio wraps epoll in the **edge-triggered** mode: an event means "this
//! became ready since you last looked", reported once. A reader that takes
//! part of the data and goes back to waiting may never hear about the rest.
//! So the rule for this backend, which the connection code follows for all
//! three: after an event, read (or write) until `WouldBlock`.
//!
//! This is the one backend without `unsafe` of our own: mio holds it.
//!
//! Not here: the shared contract (see [`crate::selector::Selector`]); the
//! other backends (`fd_set.rs`, `poll.rs`).

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::Duration;

use mio::unix::SourceFd;

use crate::event::{Event, Interest, Token};
use crate::sys::retry_interrupted;

/// How many events one wait can return. More ready descriptors than this is
/// fine: the rest stay on the kernel's ready list for the next wait.
const EVENTS_CAPACITY: usize = 1024;

// ANCHOR: poller
/// A selector over epoll (mio).
///
/// - **Edge-triggered**: a descriptor is reported once each time it *becomes* ready; read or write until `WouldBlock` before waiting again.
/// - A signal during a wait (`EINTR`) is retried with the time left; `wait`
///   never returns `Interrupted`.
/// - Readiness is only a hint: the read or write it announces may still
///   return `WouldBlock`, or do only part of the work.
///
/// [`Selector`](crate::selector::Selector) documents the contract shared by
/// all three backends.
pub struct Poller {
    poll: mio::Poll,
    events: mio::Events,
}

impl Poller {
    /// Creates the kernel's epoll instance (one descriptor).
    pub fn new() -> io::Result<Poller> {
        Ok(Poller {
            poll: mio::Poll::new()?,
            events: mio::Events::with_capacity(EVENTS_CAPACITY),
        })
    }

    /// Registers `fd` with the kernel (`EPOLL_CTL_ADD`): once per
    /// descriptor, for its whole life.
    pub fn add(&mut self, fd: BorrowedFd<'_>, token: Token, interest: Interest) -> io::Result<()> {
        let raw = fd.as_raw_fd();
        self.poll.registry().register(
            &mut SourceFd(&raw),
            mio::Token(token.get()),
            mio_interest(interest),
        )
    }
    // ANCHOR_END: poller

    /// Changes what `fd` is watched for (`EPOLL_CTL_MOD`). The kernel checks
    /// readiness again, so an edge that is already there is not lost.
    pub fn modify(
        &mut self,
        fd: BorrowedFd<'_>,
        token: Token,
        interest: Interest,
    ) -> io::Result<()> {
        let raw = fd.as_raw_fd();
        self.poll.registry().reregister(
            &mut SourceFd(&raw),
            mio::Token(token.get()),
            mio_interest(interest),
        )
    }

    /// Unregisters `fd` (`EPOLL_CTL_DEL`). Call it before closing the
    /// descriptor.
    pub fn delete(&mut self, fd: BorrowedFd<'_>) -> io::Result<()> {
        let raw = fd.as_raw_fd();
        self.poll.registry().deregister(&mut SourceFd(&raw))
    }

    // ANCHOR: wait
    /// Waits until a registered descriptor is ready or `timeout` passes
    /// (`None`: no limit), and puts what is ready in `events` (cleared
    /// first; empty after a timeout).
    pub fn wait(&mut self, events: &mut Vec<Event>, timeout: Option<Duration>) -> io::Result<()> {
        events.clear();
        let Poller {
            poll,
            events: ready,
        } = self;
        // mio returns EINTR to its caller, like the system call does.
        retry_interrupted(timeout, |left| poll.poll(ready, left))?;
        // Only the ready descriptors come back: no scan of the others.
        for event in ready.iter() {
            let broken = event.is_error();
            events.push(Event {
                token: Token::new(event.token().0),
                readable: broken || event.is_readable() || event.is_read_closed(),
                writable: broken || event.is_writable() || event.is_write_closed(),
                closed: broken || event.is_read_closed(),
            });
        }
        Ok(())
    }
    // ANCHOR_END: wait
}

impl std::fmt::Debug for Poller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Poller").field("poll", &self.poll).finish()
    }
}

fn mio_interest(interest: Interest) -> mio::Interest {
    match interest {
        Interest::Read => mio::Interest::READABLE,
        Interest::Write => mio::Interest::WRITABLE,
        Interest::ReadWrite => mio::Interest::READABLE | mio::Interest::WRITABLE,
    }
}
