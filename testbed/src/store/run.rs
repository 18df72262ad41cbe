//! Which run a results database belongs to.
//!
//! `--db` names an output file, and a new run there replaces the last one's
//! results. That is the documented behaviour, and a reasonable one, but not
//! a silent one: each run writes its id into the database's `run` table,
//! and the run that replaces it says whose results it replaced, and how
//! many, in its report.
//!
//! Not here: keeping two runs off one file at once (`lock.rs`).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension};

/// A run's id: when it started (seconds since the Unix epoch), its process
/// and its number in that process, `1714000000-4242-0`. Unique on one
/// machine, and readable.
pub fn new_run_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{seconds}-{}-{n}", std::process::id())
}

/// The results a new run found in its database, and replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviousRun {
    /// The earlier run's id; `None` for a database made before runs had
    /// ids.
    pub id: Option<String>,
    /// How many outcomes it had recorded.
    pub outcomes: u64,
}

impl fmt::Display for PreviousRun {
    /// `run 1714000000-4242-0 (200 outcomes)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.id {
            Some(id) => write!(f, "run {id} ({} outcomes)", self.outcomes),
            None => write!(f, "an earlier run ({} outcomes)", self.outcomes),
        }
    }
}

/// What the database holds before a run replaces it: `None` for a new (or
/// empty) one.
pub(super) fn previous(conn: &Connection) -> rusqlite::Result<Option<PreviousRun>> {
    let has = |table: &str| -> rusqlite::Result<bool> {
        conn.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [table],
            |row| row.get::<_, i64>(0),
        )
        .map(|n| n > 0)
    };
    if !has("outcomes")? {
        return Ok(None);
    }
    let outcomes: i64 = conn.query_row("SELECT COUNT(*) FROM outcomes", [], |row| row.get(0))?;
    let id = if has("run")? {
        conn.query_row("SELECT id FROM run", [], |row| row.get(0))
            .optional()?
    } else {
        None
    };
    Ok((outcomes > 0 || id.is_some()).then(|| PreviousRun {
        id,
        outcomes: u64::try_from(outcomes).unwrap_or(0),
    }))
}

/// The id recorded in the database, if any.
pub(super) fn recorded_id(conn: &Connection) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT id FROM run", [], |row| row.get(0))
        .optional()
}
