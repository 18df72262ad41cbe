//! An optional log of what the pool did to its connections and checkouts,
//! with times: for the chapter's timeline of a run, and for the tests that
//! check the pool's invariants from the outside.
//!
//! Off by default (a long run would fill memory with it); turn it on with
//! [`crate::CheckoutPool::keep_journal`]. Items' own outcomes are not
//! here: they are the [`crate::FinishedCall`]s.

use std::time::{Duration, Instant};

use select::slot::SlotId;
use testbed::outcome::ErrorKind;

use crate::checkout::CheckoutId;
use crate::stats::CloseReason;

/// Something the pool did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Happening {
    /// Started a handshake in this place.
    Connecting(SlotId),
    /// The handshake finished: a connection joined the pool.
    Connected(SlotId),
    /// A connect failed; the next one waits `retry_in` (`None`: a backoff
    /// was already running).
    ConnectFailed {
        /// The place it was opening, if it got that far.
        slot: Option<SlotId>,
        /// Refused, timed out, closed.
        kind: ErrorKind,
        /// The backoff it started.
        retry_in: Option<Duration>,
    },
    /// A replacement died unused, like the connection it replaced:
    /// standbys (`min_idle`) wait `retry_in` before the next is opened.
    StandbysHeld {
        /// The backoff it started.
        retry_in: Duration,
    },
    /// A checkout got a connection, after waiting this long.
    Assigned {
        /// The connection.
        slot: SlotId,
        /// The checkout.
        checkout: CheckoutId,
        /// Time since the checkout was asked for.
        waited: Duration,
    },
    /// A connection went back to the pool's idle list.
    Returned(SlotId),
    /// A connection was closed.
    Closed {
        /// Which.
        slot: SlotId,
        /// Why.
        reason: CloseReason,
    },
    /// A queued checkout got no connection in time.
    GaveUp {
        /// The checkout.
        checkout: CheckoutId,
        /// `pool_timeout`, or the connect error when no connection could be
        /// opened at all.
        kind: ErrorKind,
        /// Time since it was asked for.
        waited: Duration,
    },
}

/// One journal line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// When.
    pub at: Instant,
    /// What.
    pub what: Happening,
}

/// The log, when kept.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    entries: Option<Vec<Entry>>,
}

impl Journal {
    /// Starts keeping entries.
    pub fn keep(&mut self) {
        self.entries.get_or_insert_with(Vec::new);
    }

    /// Notes `what`, if the journal is kept.
    pub fn note(&mut self, what: Happening) {
        if let Some(entries) = &mut self.entries {
            entries.push(Entry {
                at: Instant::now(),
                what,
            });
        }
    }

    /// Everything noted so far.
    pub fn entries(&self) -> &[Entry] {
        self.entries.as_deref().unwrap_or_default()
    }
}
