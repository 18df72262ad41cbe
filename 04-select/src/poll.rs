//! The middle backend: `poll(2)`, called directly through libc.
//!
//! `poll` fixes `select`'s two worst problems: it takes an *array* of
//! `pollfd` records (descriptor, events wanted, events returned) instead of
//! bitmaps, so any descriptor number works and there is no `FD_SETSIZE`; and
//! it writes its answer into a separate field (`revents`), so the request
//! survives the call. What it keeps is the cost: every call hands the whole
//! array to the kernel, which checks every entry, and the caller then scans
//! every entry for a non-zero `revents`. Waiting on 1,000 connections costs
//! about 1,000 units of work per wait even when one of them is ready.
//!
//! Not here: the shared contract (see [`crate::selector::Selector`]); the
//! other backends (`fd_set.rs`, `epoll.rs`).

use std::io;
use std::os::fd::BorrowedFd;
use std::time::Duration;

use crate::event::{Event, Interest, Token};
use crate::interest_list::InterestList;
use crate::sys::{retry_interrupted, syscall, timeout_ms};

// ANCHOR: poller
/// A selector over `poll(2)`.
///
/// - **Level-triggered**: a descriptor is reported by every wait for as long as it is ready.
/// - A signal during a wait (`EINTR`) is retried with the time left; `wait`
///   never returns `Interrupted`.
/// - Readiness is only a hint: the read or write it announces may still
///   return `WouldBlock`, or do only part of the work.
///
/// [`Selector`](crate::selector::Selector) documents the contract shared by
/// all three backends.
#[derive(Debug, Default)]
pub struct Poller {
    /// What to watch, by descriptor.
    registered: InterestList,
    /// The array handed to the kernel, rebuilt from `registered` when it
    /// changed. `tokens[i]` belongs to `pollfds[i]`.
    pollfds: Vec<libc::pollfd>,
    tokens: Vec<Token>,
    /// The `registered` generation `pollfds` was built from.
    built: Option<u64>,
}
// ANCHOR_END: poller

impl Poller {
    /// A poller with nothing registered. `poll` keeps no kernel state, so
    /// this makes no system call.
    pub fn new() -> io::Result<Poller> {
        Ok(Poller::default())
    }

    /// Starts watching `fd`. Any descriptor number works.
    pub fn add(&mut self, fd: BorrowedFd<'_>, token: Token, interest: Interest) -> io::Result<()> {
        self.registered.add(fd, token, interest)
    }

    /// Changes what `fd` is watched for (no system call).
    pub fn modify(
        &mut self,
        fd: BorrowedFd<'_>,
        token: Token,
        interest: Interest,
    ) -> io::Result<()> {
        self.registered.modify(fd, token, interest)
    }

    /// Stops watching `fd`. Call it before closing the descriptor.
    pub fn delete(&mut self, fd: BorrowedFd<'_>) -> io::Result<()> {
        self.registered.delete(fd)
    }

    // ANCHOR: wait
    /// Waits until a registered descriptor is ready or `timeout` passes
    /// (`None`: no limit), and puts what is ready in `events` (cleared
    /// first; empty after a timeout).
    pub fn wait(&mut self, events: &mut Vec<Event>, timeout: Option<Duration>) -> io::Result<()> {
        events.clear();
        if self.built != Some(self.registered.generation()) {
            self.rebuild();
        }
        let pollfds = &mut self.pollfds;
        retry_interrupted(timeout, |left| {
            let len = libc::nfds_t::try_from(pollfds.len())
                .map_err(|_| io::Error::other("too many descriptors for one poll"))?;
            // SAFETY: `pollfds` is a live, initialised array of `len`
            // records that nothing else touches during the call; the kernel
            // writes only their `revents` fields.
            syscall(unsafe { libc::poll(pollfds.as_mut_ptr(), len, timeout_ms(left)) })
        })?;
        // `poll` says how many entries have news, not which: scan them all.
        for (pollfd, &token) in self.pollfds.iter().zip(&self.tokens) {
            let revents = pollfd.revents;
            if revents == 0 {
                continue;
            }
            if revents & libc::POLLNVAL != 0 {
                // A registered descriptor that is not open: someone closed it
                // without `delete` first. Its number may already belong to
                // another socket, so carrying on could mix up connections.
                return Err(io::Error::other(format!(
                    "descriptor {} was closed while registered",
                    pollfd.fd
                )));
            }
            // An error or a hang-up is news for both directions: the next
            // read or write will say what it was.
            let broken = revents & (libc::POLLERR | libc::POLLHUP) != 0;
            events.push(Event {
                token,
                readable: broken || revents & libc::POLLIN != 0,
                writable: broken || revents & libc::POLLOUT != 0,
                closed: broken,
            });
        }
        Ok(())
    }
    // ANCHOR_END: wait

    fn rebuild(&mut self) {
        self.pollfds.clear();
        self.tokens.clear();
        for (fd, token, interest) in self.registered.iter() {
            let mut wanted = 0;
            if interest.is_readable() {
                wanted |= libc::POLLIN;
            }
            if interest.is_writable() {
                wanted |= libc::POLLOUT;
            }
            self.pollfds.push(libc::pollfd {
                fd,
                events: wanted,
                revents: 0,
            });
            self.tokens.push(token);
        }
        self.built = Some(self.registered.generation());
    }
}
