//! One worker: its own connection, its own database connection, its own
//! partition, processed with stage 1's blocking request.
//!
//! This is the source article's `work()`. It is the same code whether the
//! worker is a forked process ([`crate::processes`]) or a thread
//! ([`crate::threads`]): the lesson of this stage is not a new way of doing
//! I/O, it is running several copies of the old one side by side. Each copy
//! still spends almost all its time blocked in `read`, and each holds a
//! database connection for the whole run, which is the cost that the rest of
//! the ladder sets out to remove.
//!
//! Not here: how the copies are started and waited for.

use std::fmt;
use std::net::TcpStream;
use std::time::Instant;

use testbed::conn::Conn;
use testbed::stage::{Scenario, StageError};
use testbed::store::Lane;
use testbed::workload::Item;

/// A worker's number, `0..N`: its partition, and its lane on the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkerId(usize);

impl WorkerId {
    /// The worker that takes partition `index`.
    pub fn new(index: usize) -> WorkerId {
        WorkerId(index)
    }

    /// Its partition's number, `0..N`.
    pub fn index(self) -> usize {
        self.0
    }

    /// The timeline lane this worker draws in.
    pub fn lane(self) -> Lane {
        Lane::of(self.0)
    }
}

impl fmt::Display for WorkerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "worker {}", self.0)
    }
}

// ANCHOR: work
/// Processes `items` one at a time over one connection, recording each
/// outcome through one database connection of this worker's own, opened
/// here (in a forked child: after the fork).
///
/// `after_record` is called with the number of outcomes recorded so far,
/// after each one is committed; the process variant uses it to die on
/// purpose (`--crash-worker`), everything else passes `|_| {}`.
///
/// Returns early only if the database fails: a failed *item* (refused,
/// closed, garbled, timed out) is an outcome like any other, recorded, and
/// the next item gets a fresh connection.
pub fn work(
    scenario: &Scenario,
    worker: WorkerId,
    items: &[&Item],
    mut after_record: impl FnMut(usize),
) -> Result<(), StageError> {
    let mut store = scenario.open_store()?;
    let mut conn: Option<Conn<TcpStream>> = None;
    for (done, item) in items.iter().enumerate() {
        let started = Instant::now();
        let outcome = sync::connect_and_request(&mut conn, scenario, item);
        store.record(item.id, worker.lane(), started, &outcome)?;
        after_record(done + 1);
    }
    Ok(())
}
// ANCHOR_END: work
