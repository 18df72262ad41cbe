//! The executor's recorded tasks in the database: table `task_trace`, one
//! row holding the run's [`TaskTrace`] as JSON, when the stage recorded
//! one. A run without a trace leaves the table empty, and its page shows
//! no tasks.
//!
//! One JSON value rather than a table per kind of record: the page and
//! the trace read the whole trace at once, never a query into it, and a
//! trace is written once, after the stage returned (the executor itself
//! only pushes onto vectors, [`crate::tasks::TaskLog`]).

use rusqlite::OptionalExtension;

use super::{Store, StoreError};
use crate::tasks::TaskTrace;

/// The table, made anew with the run's others by `Store::create_run`.
pub(super) const SCHEMA: &str = "
    DROP TABLE IF EXISTS task_trace;
    CREATE TABLE task_trace (json TEXT NOT NULL);
";

impl Store {
    /// Stores the executor's trace (once per run, after the stage returned).
    pub fn record_tasks(&mut self, trace: &TaskTrace) -> Result<(), StoreError> {
        let json = serde_json::to_string(trace).expect("a task trace is plain data");
        self.conn
            .execute("INSERT INTO task_trace (json) VALUES (?1)", [json])?;
        Ok(())
    }

    /// The executor's trace, or `None` when the stage recorded none (or the
    /// database predates the recording).
    pub fn tasks(&self) -> Result<Option<TaskTrace>, StoreError> {
        let has_table: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'task_trace'",
            [],
            |row| row.get(0),
        )?;
        if has_table == 0 {
            return Ok(None);
        }
        let json: Option<String> = self
            .conn
            .query_row("SELECT json FROM task_trace LIMIT 1", [], |row| row.get(0))
            .optional()?;
        json.map(|json| {
            serde_json::from_str(&json).map_err(|e| StoreError::Corrupt {
                id: 0,
                why: format!("the kept task trace does not decode: {e}"),
            })
        })
        .transpose()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use crate::sample::task_trace;
    use crate::store::{DbTarget, Store};

    #[test]
    fn a_trace_goes_in_and_comes_back_and_a_new_run_has_none() {
        let target = DbTarget::memory();
        let epoch = Instant::now();
        let mut store = Store::create_run(&target, epoch, "test").unwrap();
        assert_eq!(store.tasks().unwrap(), None, "nothing recorded yet");
        let trace = task_trace(4, 3, true);
        store.record_tasks(&trace).unwrap();
        assert_eq!(store.tasks().unwrap(), Some(trace));
        let again = Store::create_run(&target, epoch, "next").unwrap();
        assert_eq!(again.tasks().unwrap(), None);
    }
}
