//! The inbox: wake tickets sent from other threads, and the count of
//! threads that could still send one.
//!
//! A scheduler and its fibers live on one thread, but the end of a wait may
//! come from another (a blocking call run elsewhere, a worker). The source article's
//! `unblock` takes a mutex, appends to a list and calls the selector's
//! `wakeup`. Here the list is a crossbeam channel (already thread-safe) and
//! the wake-up is a mio [`Waker`] (an `eventfd` that `epoll` watches):
//! [`InboxSender::send`] sends the ticket, then makes `poll` return, and
//! the loop takes the ticket from the channel.
//!
//! # Counting senders
//!
//! A fiber blocked with no timeout can still be woken by another thread as
//! long as a sender is alive, so the inbox counts them: while the count is
//! zero, the channel is empty and nothing else can wake a blocked fiber,
//! `run` reports a deadlock. Dropping a sender also wakes `poll`, so the
//! loop notices when the last one goes.
//!
//! Not here: the public handle, [`crate::Remote`], and `spawn_blocking`
//! (`remote.rs`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crossbeam_channel::{Receiver, Sender};
use mio::Waker;

use super::wait::WakeTicket;

/// The loop's end: the channel's receiver, and what every sender shares.
pub(super) struct Inbox {
    tx: Sender<WakeTicket>,
    rx: Receiver<WakeTicket>,
    shared: Arc<Shared>,
}

/// What every sender of one inbox shares.
#[derive(Debug)]
struct Shared {
    /// Makes the scheduler's `poll` return.
    waker: Waker,
    /// How many [`InboxSender`]s exist.
    senders: AtomicUsize,
}

impl Shared {
    fn wake(&self) {
        // The only failure is a full eventfd counter, which already means
        // "wake up": nothing is lost.
        let _ = self.waker.wake();
    }
}

/// A sending end, for another thread: `Send`, `Sync`, counted while it
/// lives.
#[derive(Debug)]
pub(crate) struct InboxSender {
    tx: Sender<WakeTicket>,
    shared: Arc<Shared>,
}

impl Inbox {
    pub(super) fn new(waker: Waker) -> Inbox {
        let (tx, rx) = crossbeam_channel::unbounded();
        Inbox {
            tx,
            rx,
            shared: Arc::new(Shared {
                waker,
                senders: AtomicUsize::new(0),
            }),
        }
    }

    /// A new sender (counted).
    pub(super) fn sender(&self) -> InboxSender {
        self.shared.senders.fetch_add(1, Ordering::AcqRel);
        InboxSender {
            tx: self.tx.clone(),
            shared: self.shared.clone(),
        }
    }

    /// The tickets sent so far, without waiting.
    pub(super) fn take(&self) -> impl Iterator<Item = WakeTicket> + '_ {
        self.rx.try_iter()
    }

    /// True when no ticket is on its way and no sender is left to send one.
    pub(super) fn is_closed(&self) -> bool {
        // Read the count before the channel: a thread sends its ticket
        // before it drops its sender.
        self.shared.senders.load(Ordering::Acquire) == 0 && self.rx.is_empty()
    }
}

impl InboxSender {
    // ANCHOR: inbox_send
    /// Sends `ticket` to the loop, and wakes the loop if it sleeps in
    /// `poll`: it makes the fiber ready on its next turn (if the wait is
    /// still in progress by then).
    pub(crate) fn send(&self, ticket: WakeTicket) {
        // The send fails only if the scheduler is gone, and then there is
        // no fiber left to wake.
        let _ = self.tx.send(ticket);
        self.shared.wake();
    }
    // ANCHOR_END: inbox_send
}

impl Clone for InboxSender {
    fn clone(&self) -> InboxSender {
        self.shared.senders.fetch_add(1, Ordering::AcqRel);
        InboxSender {
            tx: self.tx.clone(),
            shared: self.shared.clone(),
        }
    }
}

impl Drop for InboxSender {
    fn drop(&mut self) {
        // Count down *before* waking, so the loop that wakes sees the new
        // count (and the tickets this sender sent, which came earlier).
        self.shared.senders.fetch_sub(1, Ordering::AcqRel);
        self.shared.wake();
    }
}
