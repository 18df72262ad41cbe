//! Workers that did not finish, and the items they left without a row.
//!
//! A worker can stop early: a child process killed by a signal, or one
//! whose database failed; a thread whose database failed. Its partition's
//! remaining items then have no outcome, and the report counts them as
//! *lost*, the one thing a stage must never do quietly. This module finds
//! them, after every worker has ended, by asking the database which items
//! of the partition have no row, and turns that into a note a reader of the
//! report cannot miss: who stopped, how, and how many items it left.
//!
//! Not here: retrying them (chapter 2's second exercise does that).

use std::collections::BTreeSet;

use testbed::protocol::ItemId;
use testbed::stage::{Scenario, StageError};
use testbed::store::Store;
use testbed::workload::Item;

use crate::worker::WorkerId;

/// A worker that ended before its partition was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    /// Which worker (and so which partition).
    pub worker: WorkerId,
    /// How it ended, in words: `(pid 4242) killed by SIGKILL`.
    pub why: String,
}

/// The items of `items` that have no row in the scenario's database.
///
/// Opens a database connection of its own and closes it before returning,
/// so a parent that forks again afterwards carries no SQLite connection
/// across the fork.
pub fn unrecorded<'a>(
    scenario: &Scenario,
    items: &[&'a Item],
) -> Result<Vec<&'a Item>, StageError> {
    let recorded = recorded_ids(scenario)?;
    Ok(items
        .iter()
        .copied()
        .filter(|item| !recorded.contains(&item.id))
        .collect())
}

// ANCHOR: notes
/// One note per unfinished worker: `worker 2 (pid 4242) killed by SIGKILL:
/// 90 of its 100 items have no row`. Reads the database only if some
/// worker did not finish.
pub fn notes(
    scenario: &Scenario,
    partitions: &[Vec<&Item>],
    unfinished: &[Unfinished],
) -> Result<Vec<String>, StageError> {
    if unfinished.is_empty() {
        return Ok(Vec::new());
    }
    let recorded = recorded_ids(scenario)?;
    Ok(unfinished
        .iter()
        .map(|u| {
            let partition = &partitions[u.worker.index()];
            let missing = partition
                .iter()
                .filter(|item| !recorded.contains(&item.id))
                .count();
            format!(
                "{} {}: {missing} of its {} items have no row",
                u.worker,
                u.why,
                partition.len()
            )
        })
        .collect())
}
// ANCHOR_END: notes

/// Every id that has a row, through a connection opened and closed here.
fn recorded_ids(scenario: &Scenario) -> Result<BTreeSet<ItemId>, StageError> {
    let store = Store::open(&scenario.db, scenario.epoch)?;
    Ok(store.rows()?.into_iter().map(|row| row.id).collect())
}
