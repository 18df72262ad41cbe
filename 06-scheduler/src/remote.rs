//! Other threads: waking a fiber from another thread, and waiting in a
//! fiber for work done on one.
//!
//! A scheduler and its fibers live on one thread; `Scheduler` is not even
//! `Send`. But work sometimes has to happen elsewhere (a blocking library
//! call, a CPU-heavy job), and its end must wake the fiber that waits for
//! it. A [`Remote`] is the handle such a thread holds: a sending end of
//! the scheduler's inbox (`scheduler/inbox.rs`), which carries a wake
//! ticket to the loop and interrupts its `poll`.
//!
//! # Deadlock detection
//!
//! A fiber blocked with no timeout can still be woken by another thread as
//! long as some [`Remote`] is alive, so the inbox counts them: while the
//! count is zero and nothing else can wake a blocked fiber, `run` reports a
//! deadlock. Dropping a `Remote` also wakes `poll`, so the loop notices when
//! the last one goes.
//!
//! Not here: waking a fiber from this thread ([`Scheduler::unblock`]).

use std::panic::{self, AssertUnwindSafe};
use std::{io, thread};

use crate::scheduler::{InboxSender, Scheduler, WakeTicket};

/// A handle another thread can unblock a fiber with. `Send`, `Sync` and
/// cheap to clone; the scheduler counts the live ones.
#[derive(Debug, Clone)]
pub struct Remote {
    inbox: InboxSender,
}

impl Remote {
    /// Ends the wait `ticket` names, from any thread: the scheduler's loop
    /// makes its fiber ready on its next turn (if the wait is still in
    /// progress by then; see [`Scheduler::unblock`]).
    pub fn unblock(&self, ticket: WakeTicket) {
        self.inbox.send(ticket);
    }
}

impl Scheduler {
    /// A handle for other threads to [`unblock`](Remote::unblock) this
    /// scheduler's fibers with.
    pub fn remote(&self) -> Remote {
        Remote {
            inbox: self.inbox_sender(),
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
