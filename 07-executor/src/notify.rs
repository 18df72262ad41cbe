//! The self-pipe: how another thread interrupts the loop's `epoll_wait`.
//!
//! The loop sleeps in one place, the selector's `wait`. A task woken from
//! this thread is simply queued, and the loop sees it before it sleeps. A
//! task woken from *another* thread while the loop is asleep is queued
//! too, but nobody looks at the queue until `epoll_wait` returns, which may
//! be never (no socket moves, no timer is set). The wake must therefore
//! make a descriptor that epoll watches ready.
//!
//! That descriptor is one end of a connected pair of Unix sockets (a "self
//! pipe", the trick is older than epoll): the read end is registered with
//! stage 4's [`Selector`](select::Selector) under a reserved token,
//! [`NOTIFY_TOKEN`], and a wake writes one byte to the other end. mio's
//! `Waker` is the same idea; on Linux it uses an `eventfd` (one counter,
//! not a byte buffer), which the standard library cannot make without
//! `libc` and `unsafe`. A `UnixStream` pair needs neither.
//!
//! Two details keep it cheap and safe. Writes are rare: only the first
//! wake of a sleep writes (`Wakeups::push` clears the "sleeping" flag as it
//! does). And a full socket buffer is not a failure: a write that would
//! block means bytes are already waiting, so the loop will wake anyway.
//!
//! Not here: the flag that says the loop is asleep (`waker.rs`).

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;

use select::event::Token;

/// The token of the self-pipe's read end in the selector. No socket of the
/// reactor can have it: they are numbered from 0 up, and a process runs out
/// of descriptors long before `usize::MAX` (polling reserves its
/// `NOTIFY_KEY` the same way).
pub(crate) const NOTIFY_TOKEN: Token = Token::new(usize::MAX);

/// How many bytes one read of the drain takes: any size works, since the
/// bytes mean nothing but "wake up".
const DRAIN_CHUNK: usize = 256;

/// The write end, shared by every waker of the executor. `Send + Sync`.
#[derive(Debug)]
pub(crate) struct Notifier {
    writer: UnixStream,
}

/// The read end, owned by the reactor.
#[derive(Debug)]
pub(crate) struct NotifyReader {
    reader: UnixStream,
}

/// A new self-pipe, both ends non-blocking.
pub(crate) fn pair() -> io::Result<(Notifier, NotifyReader)> {
    let (reader, writer) = UnixStream::pair()?;
    reader.set_nonblocking(true)?;
    writer.set_nonblocking(true)?;
    Ok((Notifier { writer }, NotifyReader { reader }))
}

// ANCHOR: notify
impl Notifier {
    /// Makes the read end readable, from any thread.
    pub(crate) fn notify(&self) {
        // `WouldBlock`: the buffer is full of earlier bytes, so the loop is
        // woken already. Any other error means the read end is gone with the
        // executor, and there is no loop left to wake.
        let _ = (&self.writer).write(&[1]);
    }
}
// ANCHOR_END: notify

impl NotifyReader {
    /// The descriptor to register with the selector.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.reader.as_fd()
    }

    /// Reads every byte written so far, so that the next write makes a new
    /// edge (epoll is edge-triggered: bytes left behind would never be
    /// reported again).
    pub(crate) fn drain(&self) {
        let mut buf = [0u8; DRAIN_CHUNK];
        loop {
            match (&self.reader).read(&mut buf) {
                Ok(0) => return,
                Ok(n) if n < buf.len() => return,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // `WouldBlock`: empty. Anything else: the write end is gone
                // (it lives as long as the executor's wakers), nothing to do.
                Err(_) => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use select::{Backend, Selector};

    use super::*;

    /// The wait is interrupted by a notify from another thread, and the
    /// selector reports the reserved token. Bounded: the wait has a long
    /// timeout, and a wait that ends by timing out reports no event.
    #[test]
    fn a_notify_from_another_thread_ends_a_wait() -> io::Result<()> {
        let (notifier, reader) = pair()?;
        let mut selector = Selector::new(Backend::Epoll)?;
        selector.add(reader.fd(), NOTIFY_TOKEN, select::event::Interest::Read)?;
        let mut events = Vec::new();
        std::thread::scope(|scope| -> io::Result<()> {
            scope.spawn(|| notifier.notify());
            selector.wait(&mut events, Some(Duration::from_secs(10)))?;
            Ok(())
        })?;
        assert_eq!(events.first().map(|e| e.token), Some(NOTIFY_TOKEN));
        reader.drain();
        // Drained: the next wait times out with nothing to report.
        selector.wait(&mut events, Some(Duration::from_millis(1)))?;
        assert!(events.is_empty(), "{events:?}");
        Ok(())
    }

    #[test]
    fn notifies_beyond_the_buffer_do_not_block_or_fail() -> io::Result<()> {
        let (notifier, reader) = pair()?;
        // More one-byte writes than a socket buffer holds (each costs the
        // buffer far more than its byte): the last ones would block, and are
        // dropped instead.
        for _ in 0..10_000 {
            notifier.notify();
        }
        reader.drain();
        Ok(())
    }
}
