//! The reactor: stage 4's [`Selector`] (its epoll backend), plus one
//! waker per socket and direction.
//!
//! A future that reads a socket and gets `WouldBlock` cannot wait there; it
//! must return `Pending`, and something must remember to poll it again
//! when the socket has data. That something is the reactor. Each socket is
//! registered once, for both directions, and gets a [`SourceKey`] (its
//! token in the selector); for each direction the reactor keeps at most one
//! waker, the task that waits to read and the one that waits to write. One
//! turn of the loop is one [`Reactor::wait`]: sleep in `epoll_wait`, then
//! hand back the wakers of exactly the sockets that became ready.
//!
//! # Edge-triggered, with readiness bits
//!
//! The epoll backend is edge-triggered: a socket is reported when it
//! *becomes* ready, once. So the rule is stage 4's: try the operation
//! first, and park only after it said `WouldBlock`. Between that
//! `WouldBlock` and the park no event can slip by, because events are only
//! read here, in the loop, never during a poll. But an event can come
//! while nobody waits (the task was busy elsewhere). So each direction also
//! has a readiness bit: every event sets it, and [`Reactor::park`] takes it
//! instead of parking when it is set ("try again, something came"). A stale
//! bit costs one read that says `WouldBlock`; a missing one would cost a
//! task that sleeps forever. This is tokio's `ScheduledIo` in miniature.
//!
//! Readiness is a hint: a woken task tries again, and may get `WouldBlock`
//! again, and park again. The read side also keeps stage 4's rule for a
//! close that arrives with the data ([`Reactor::peer_closed`],
//! `select::nonblocking::drained`).
//!
//! # Why only epoll
//!
//! Registering both directions once only works with an edge-triggered
//! backend: `select(2)` and `poll(2)` are level-triggered, and would report
//! every idle socket as writable on every wait, a busy loop. Stage 4's
//! other backends would need interest changed at every park.
//!
//! Not here: the self-pipe's token (`notify.rs`); what a read *means*
//! (`conn.rs`).

use std::io;
use std::os::fd::BorrowedFd;
use std::task::Waker;
use std::time::Duration;

use select::event::{Event, Interest, Token};
use select::{Backend, Selector};

use crate::notify::{NOTIFY_TOKEN, NotifyReader};

/// Names a socket registered with the reactor (its selector token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SourceKey(usize);

impl SourceKey {
    /// The selector's token for this socket.
    fn token(self) -> Token {
        Token::new(self.0)
    }

    /// The socket an event's token names, unless it is the self-pipe's.
    fn of(token: Token) -> Option<SourceKey> {
        (token != NOTIFY_TOKEN).then_some(SourceKey(token.get()))
    }
}

/// The direction a task waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Data to read, or the end of the stream, or an error.
    Read,
    /// Room to write, or a finished `connect`.
    Write,
}

/// What [`Reactor::park`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Park {
    /// An event came since the last park: try the operation again now.
    Retry,
    /// The waker is stored; return `Pending`.
    Parked,
}

/// One registered socket.
#[derive(Debug, Default)]
struct Source {
    /// An event said "readable" and no park has used it yet.
    readable: bool,
    writable: bool,
    /// The peer has closed its side. Never clears (see `peer_closed`).
    read_closed: bool,
    reader: Option<Waker>,
    writer: Option<Waker>,
}

/// The selector, the registered sockets and their wakers.
pub(crate) struct Reactor {
    selector: Selector,
    /// By key; `None` for a free key.
    sources: Vec<Option<Source>>,
    free: Vec<SourceKey>,
    /// The selector's events, kept to reuse their memory.
    events: Vec<Event>,
    notify: NotifyReader,
    /// Wakers stored in `sources`: tasks waiting on a socket.
    parked: usize,
    /// Calls to `epoll_wait`.
    pub(crate) waits: u64,
}

impl Reactor {
    /// An epoll selector watching the self-pipe's read end.
    pub(crate) fn new(notify: NotifyReader) -> io::Result<Reactor> {
        let mut selector = Selector::new(Backend::Epoll)?;
        selector.add(notify.fd(), NOTIFY_TOKEN, Interest::Read)?;
        Ok(Reactor {
            selector,
            sources: Vec::new(),
            free: Vec::new(),
            events: Vec::new(),
            notify,
            parked: 0,
            waits: 0,
        })
    }

    /// Registers `fd`, for both directions, for its whole life. Call
    /// [`delete`](Self::delete) before closing it.
    pub(crate) fn add(&mut self, fd: BorrowedFd<'_>) -> io::Result<SourceKey> {
        let key = match self.free.pop() {
            Some(key) => key,
            None => {
                self.sources.push(None);
                SourceKey(self.sources.len() - 1)
            }
        };
        if let Err(e) = self.selector.add(fd, key.token(), Interest::ReadWrite) {
            self.free.push(key);
            return Err(e);
        }
        self.sources[key.0] = Some(Source::default());
        Ok(key)
    }

    /// Unregisters `fd` (before it is closed, or a reused descriptor number
    /// could report its events under this key) and drops its wakers.
    pub(crate) fn delete(&mut self, key: SourceKey, fd: BorrowedFd<'_>) {
        // Only fails if epoll no longer has the descriptor; either way it
        // is gone from the kernel's list.
        let _ = self.selector.delete(fd);
        if let Some(source) = self.sources.get_mut(key.0).and_then(Option::take) {
            self.parked -=
                usize::from(source.reader.is_some()) + usize::from(source.writer.is_some());
            self.free.push(key);
        }
    }

    // ANCHOR: park
    /// Called after an operation on `key` said `WouldBlock`: either an event
    /// came since (take it: [`Park::Retry`]) or the waker is stored until
    /// one does ([`Park::Parked`]). At most one waker per direction: a
    /// second park replaces the first, unless both wake the same task.
    pub(crate) fn park(&mut self, key: SourceKey, direction: Direction, waker: &Waker) -> Park {
        let source = self.source(key);
        let (ready, slot) = match direction {
            Direction::Read => (&mut source.readable, &mut source.reader),
            Direction::Write => (&mut source.writable, &mut source.writer),
        };
        if std::mem::take(ready) {
            return Park::Retry;
        }
        match slot {
            // Polled again with the same waker: nothing to change (and no
            // atomic increment for a clone).
            Some(stored) if stored.will_wake(waker) => {}
            Some(stored) => stored.clone_from(waker),
            None => {
                *slot = Some(waker.clone());
                self.parked += 1;
            }
        }
        Park::Parked
    }
    // ANCHOR_END: park

    /// Forgets the waker parked for `direction` on `key`, if any: the future
    /// that parked it was dropped (cancelled), and a waker left behind would
    /// make the loop believe a task still waits on this socket.
    pub(crate) fn unpark(&mut self, key: SourceKey, direction: Direction) {
        let source = self.source(key);
        let slot = match direction {
            Direction::Read => &mut source.reader,
            Direction::Write => &mut source.writer,
        };
        if slot.take().is_some() {
            self.parked -= 1;
        }
    }

    /// The peer has closed its side (an event said so). A short read does not
    /// prove the socket empty then: only reading on finds the end of the
    /// stream, which no later event will announce.
    pub(crate) fn peer_closed(&self, key: SourceKey) -> bool {
        self.sources
            .get(key.0)
            .and_then(Option::as_ref)
            .is_some_and(|source| source.read_closed)
    }

    /// How many tasks wait on a socket.
    pub(crate) fn parked(&self) -> usize {
        self.parked
    }

    // ANCHOR: wait
    /// One turn: sleeps in `epoll_wait` until a socket is ready, the
    /// self-pipe is written, or `timeout` passes (`None`: no limit), then
    /// puts in `woken` the wakers of the tasks whose sockets are ready.
    ///
    /// The caller wakes them after this returns, with no borrow of the
    /// reactor held: a waker is foreign code, and may want the reactor.
    pub(crate) fn wait(
        &mut self,
        timeout: Option<Duration>,
        woken: &mut Vec<Waker>,
    ) -> io::Result<()> {
        self.waits += 1;
        self.selector.wait(&mut self.events, timeout)?;
        let before = woken.len();
        for event in &self.events {
            let Some(key) = SourceKey::of(event.token) else {
                // A wake from another thread: its task is already queued;
                // the bytes only had to end the wait.
                self.notify.drain();
                continue;
            };
            let Some(Some(source)) = self.sources.get_mut(key.0) else {
                continue;
            };
            source.read_closed |= event.closed;
            if event.readable {
                source.readable = true;
                woken.extend(source.reader.take());
            }
            if event.writable {
                source.writable = true;
                woken.extend(source.writer.take());
            }
        }
        self.parked -= woken.len() - before;
        Ok(())
    }
    // ANCHOR_END: wait

    fn source(&mut self, key: SourceKey) -> &mut Source {
        self.sources[key.0]
            .as_mut()
            .expect("a key is registered until its socket is deleted")
    }
}
