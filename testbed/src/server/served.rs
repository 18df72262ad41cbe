//! When the server served what: an optional log of every request line's
//! service time, by item and phase.
//!
//! A timeline drawn from the results database knows when the client started
//! an item and when it recorded the outcome, nothing in between. This log
//! adds the server's side: when each request line was complete (its service
//! time starts) and when its service time ended (its reply, or its fault,
//! follows at once). The gap between that and the client's next step is
//! time the reply spent waiting to be read, which is where round-robin's
//! head-of-line blocking hides.
//!
//! The log is off unless [`SlowServer::record_served_lines`] turns it on
//! (the harness does for `--timeline`): a benchmark pays nothing for it.
//!
//! Not here: counting (`stats.rs`), which is always on.
//!
//! [`SlowServer::record_served_lines`]: super::SlowServer::record_served_lines

use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use crate::protocol::{ItemId, Phase};

/// One request line the server served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServedLine {
    /// The item.
    pub id: ItemId,
    /// Its phase: `GET`, `HEAD` or `BODY`.
    pub phase: Phase,
    /// When the line was complete: the service time starts here.
    pub received: Instant,
    /// When its service time ended: the reply (or the fault, for a line
    /// the server sabotages) is written at once.
    pub done: Instant,
}

/// The log itself: `None` while off.
#[derive(Debug, Default)]
pub(super) struct ServedLog(Mutex<Option<Vec<ServedLine>>>);

impl ServedLog {
    /// Starts recording (a second call keeps what was recorded).
    pub(super) fn start(&self) {
        self.lock().get_or_insert_with(Vec::new);
    }

    /// Records a line whose service time just ended, if the log is on.
    pub(super) fn push(&self, id: ItemId, phase: Phase, received: Instant) {
        if let Some(lines) = self.lock().as_mut() {
            lines.push(ServedLine {
                id,
                phase,
                received,
                done: Instant::now(),
            });
        }
    }

    /// Everything recorded so far, in the order the service times ended.
    pub(super) fn snapshot(&self) -> Vec<ServedLine> {
        self.lock().clone().unwrap_or_default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Vec<ServedLine>>> {
        // Each critical section is one push or one clone, which leaves the
        // vector whole even if a thread panicked while holding the lock.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
