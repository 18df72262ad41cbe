//! Other threads: waking a fiber from another thread, and waiting in a
//! fiber for work done on one.
//!
//! A scheduler and its fibers live on one thread; `Scheduler` is not even
//! `Send`. But work sometimes has to happen elsewhere (a blocking library
//! call, a CPU-heavy job), and its end must wake the fiber that waits for
//! it. The seed's `unblock` takes a mutex, appends to a list and calls the
//! selector's `wakeup`. Here the list is a crossbeam channel (already
//! thread-safe) and the wake-up is a mio [`Waker`] (an `eventfd` that
//! `epoll` watches): [`Remote::unblock`] sends the ticket, then makes
//! `poll` return, and the loop takes the ticket from the channel.
//!
//! # Deadlock detection
//!
//! A fiber blocked with no timeout can still be woken by another thread as
//! long as some [`Remote`] is alive, so the scheduler counts them: while the
//! count is zero and nothing else can wake a blocked fiber, `run` reports a
//! deadlock. Dropping a `Remote` also wakes `poll`, so the loop notices when
//! the last one goes.
//!
//! Not here: waking a fiber from this thread ([`Scheduler::unblock`]).

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::{io, thread};

use crossbeam_channel::Sender;
use mio::Waker;

use crate::scheduler::{Scheduler, Ticket};

/// What every [`Remote`] of one scheduler shares.
#[derive(Debug)]
pub(crate) struct RemoteShared {
    /// Makes the scheduler's `poll` return.
    waker: Waker,
    /// How many `Remote`s exist.
    pub(crate) live: AtomicUsize,
}

impl RemoteShared {
    pub(crate) fn new(waker: Waker) -> RemoteShared {
        RemoteShared {
            waker,
            live: AtomicUsize::new(0),
        }
    }

    fn wake(&self) {
        // The only failure is a full eventfd counter, which already means
        // "wake up": nothing is lost.
        let _ = self.waker.wake();
    }
}

/// A handle another thread can unblock a fiber with. `Send`, `Sync` and
/// cheap to clone.
#[derive(Debug)]
pub struct Remote {
    unblocks: Sender<Ticket>,
    shared: Arc<RemoteShared>,
}

impl Remote {
    // ANCHOR: remote_unblock
    /// Ends the wait `ticket` names, from any thread: the scheduler's loop
    /// makes its fiber ready on its next turn (if the wait is still in
    /// progress by then; see [`Scheduler::unblock`]).
    pub fn unblock(&self, ticket: Ticket) {
        // The send fails only if the scheduler is gone, and then there is
        // no fiber left to wake.
        let _ = self.unblocks.send(ticket);
        self.shared.wake();
    }
    // ANCHOR_END: remote_unblock
}

impl Clone for Remote {
    fn clone(&self) -> Remote {
        self.shared.live.fetch_add(1, Ordering::AcqRel);
        Remote {
            unblocks: self.unblocks.clone(),
            shared: self.shared.clone(),
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        // Count down *before* waking, so the loop that wakes sees the new
        // count (and the unblocks this handle sent, which came earlier).
        self.shared.live.fetch_sub(1, Ordering::AcqRel);
        self.shared.wake();
    }
}

impl Scheduler {
    /// A handle for other threads to [`unblock`](Remote::unblock) this
    /// scheduler's fibers with.
    pub fn remote(&self) -> Remote {
        self.inner.remote.live.fetch_add(1, Ordering::AcqRel);
        Remote {
            unblocks: self.inner.remote_tx.clone(),
            shared: self.inner.remote.clone(),
        }
    }

    // ANCHOR: spawn_blocking
    /// Runs `f` on a new OS thread and suspends this fiber (not the
    /// scheduler) until it returns; then returns its value. The way to call
    /// something that would block the scheduler's thread.
    ///
    /// # Errors
    ///
    /// The thread could not be started.
    ///
    /// # Panics
    ///
    /// Outside a fiber; and if `f` panics, with its panic, in this fiber.
    pub fn spawn_blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> io::Result<T> {
        let (done_tx, done_rx) = crossbeam_channel::bounded(1);
        let remote = self.remote();
        let ticket = self.ticket();
        thread::Builder::new()
            .name("spawn_blocking".into())
            .spawn(move || {
                let result = panic::catch_unwind(AssertUnwindSafe(f));
                // Send the result before the unblock, so the fiber finds it.
                let _ = done_tx.send(result);
                remote.unblock(ticket);
            })?;
        // The thread cannot unblock us before we block: its unblock goes
        // through the loop, which runs only once this fiber has switched out.
        self.block(ticket, "a thread (spawn_blocking)", None);
        match done_rx.try_recv() {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(payload)) => panic::resume_unwind(payload),
            Err(_) => unreachable!("the thread sends its result before it unblocks us"),
        }
    }
    // ANCHOR_END: spawn_blocking
}
