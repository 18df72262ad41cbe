//! What the pool tells its caller about itself: how many checkouts wait,
//! how many calls are out and on the wire, how many connections are open
//! or idle, its counters and its journal. Nothing here changes the pool;
//! the stage reads these to report a run, the tests to check one.

use select::selector::Backend;
use testbed::turns::TurnLog;

use crate::config::Config;
use crate::journal::Entry;
use crate::stats::Stats;

use super::CheckoutPool;

impl CheckoutPool {
    /// Checkouts queued for a connection.
    pub fn waiting(&self) -> usize {
        self.waiters.len()
    }

    /// Calls made and not yet finished.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    /// Calls running on a connection.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Connections open or opening (never more than the size).
    pub fn connections(&self) -> usize {
        self.stats.census.live()
    }

    /// Connections idle in the pool.
    pub fn idle(&self) -> usize {
        self.idle.len()
    }

    /// The counters so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The loop's recorded turns: one per wait.
    pub fn turns(&self) -> &TurnLog {
        &self.turns
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The selector's backend.
    pub fn backend(&self) -> Backend {
        self.selector.backend()
    }

    /// Starts keeping a journal of connections and checkouts.
    pub fn keep_journal(&mut self) {
        self.journal.keep();
    }

    /// The journal so far (empty unless [`keep_journal`](Self::keep_journal)).
    pub fn journal(&self) -> &[Entry] {
        self.journal.entries()
    }
}

impl std::fmt::Debug for CheckoutPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckoutPool")
            .field("backend", &self.backend())
            .field("open", &self.stats.census.open())
            .field("opening", &self.stats.census.opening())
            .field("idle", &self.idle.len())
            .field("waiting", &self.waiters.len())
            .field("outstanding", &self.outstanding)
            .finish()
    }
}
