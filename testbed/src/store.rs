//! The results database: one row per item, recorded once.
//!
//! The source articles store each outcome with `$db->storeResult(...)` and make
//! a point of it: the database allows few connections, often one, and that
//! limit is what pushes every stage after 02-fork into a single process.
//! Here it is SQLite (rusqlite, bundled), so we can *count* the connections
//! each stage opens and report them.
//!
//! # Rules
//!
//! - `id` is the primary key: an outcome can never be recorded twice. A
//!   second [`Store::record`] for the same item is [`StoreError::Duplicate`],
//!   never an overwrite.
//! - Times are microseconds since the run's epoch (an `Instant` taken just
//!   before the stage starts; `Instant` is `CLOCK_MONOTONIC`, which forked
//!   children share).
//! - A connection counts in `db_connections` once it records its first
//!   outcome; the harness's own connection, which only reads, never does.
//!
//! # One run per file
//!
//! A file belongs to one run at a time: the harness locks it for the run's
//! life ([`DbLock`], `store/lock.rs`), and [`Store::create`] writes the
//! run's id into it and remembers whose results it replaced
//! ([`Store::replaced`], `store/run.rs`).
//!
//! A file without this program's mark (`store/mark.rs`) is refused before
//! SQLite opens it: `--db` never replaces another program's tables.
//!
//! # In memory or in a file
//!
//! [`DbTarget::memory`] is a named, shared-cache in-memory database: it lives
//! as long as one connection to it is open, so the harness keeps one while
//! the stage records through its own. [`DbTarget::File`] is a real file in
//! WAL mode with `BEGIN IMMEDIATE` transactions, safe for several processes
//! (02-fork's children). A deferred transaction would get `SQLITE_BUSY` at
//! once on upgrade, whatever the busy timeout; an immediate one waits.

mod lock;
pub mod mark;
mod read;
mod replay;
mod run;
mod tasks;
mod turns;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, params};
use thiserror::Error;

pub use lock::{DbLock, LockError};
pub use run::{PreviousRun, new_run_id};

use crate::outcome::{ErrorKind, Failure, Outcome};
use crate::progress::Progress;
use crate::protocol::{ItemId, ResultHash};

/// How long a writer waits for another process's transaction to finish.
/// Transactions here are one `INSERT` long, so this only trips on a stuck
/// process.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the results live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbTarget {
    /// A shared-cache in-memory database, by URI (see the module docs).
    Memory(String),
    /// A file (the `--db` flag).
    File(PathBuf),
}

impl DbTarget {
    /// A fresh in-memory database, private to this process.
    pub fn memory() -> DbTarget {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let pid = std::process::id();
        DbTarget::Memory(format!(
            "file:async-ladder-{pid}-{n}?mode=memory&cache=shared"
        ))
    }

    /// The file, if the database is one (several processes can share it).
    pub fn path(&self) -> Option<&Path> {
        match self {
            DbTarget::Memory(_) => None,
            DbTarget::File(path) => Some(path),
        }
    }
}

/// The lane an item is drawn in on the timeline: a connection, a worker
/// process or a fiber, numbered from 0 by the stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lane(pub u32);

impl Lane {
    /// The lane of the `index`-th connection, worker, slot or fiber: the
    /// one way every stage numbers its lanes.
    ///
    /// # Panics
    ///
    /// Past `u32::MAX`, which no run reaches: each lane holds at least one
    /// descriptor, and a process has at most a few million.
    pub fn of(index: usize) -> Lane {
        Lane(u32::try_from(index).expect("fewer than 2^32 lanes: each holds a descriptor"))
    }
}

/// One stored outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The item.
    pub id: ItemId,
    /// What happened to it.
    pub outcome: Outcome,
    /// When the stage started on it, µs since the run's epoch.
    pub started_us: u64,
    /// When its outcome was known, µs since the run's epoch.
    pub finished_us: u64,
    /// Where it ran.
    pub lane: Lane,
    /// Which database connection recorded it (1, 2, ... in order of first
    /// use).
    pub db_conn: u32,
}

/// Why the store failed.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The item already has an outcome: a stage recorded it twice.
    #[error("item {0} already has an outcome: an outcome is recorded once")]
    Duplicate(ItemId),
    /// An id too large for SQLite's signed 64-bit integers.
    #[error("item id {0} does not fit SQLite's INTEGER")]
    IdTooLarge(ItemId),
    /// A row that does not decode (someone else wrote to the file).
    #[error("corrupt row for item {id}: {why}")]
    Corrupt {
        /// The row's id.
        id: i64,
        /// What did not decode.
        why: String,
    },
    /// The file is not this program's, and was left untouched.
    #[error("{} {why}", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
        /// Why it is not this program's.
        why: mark::Foreign,
    },
    /// SQLite itself failed.
    #[error("results database: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// The tables of a run, made anew by [`Store::create_run`] inside its
/// transaction.
const SCHEMA: &str = "
    DROP TABLE IF EXISTS outcomes;
    DROP TABLE IF EXISTS db_connections;
    DROP TABLE IF EXISTS run;
    CREATE TABLE outcomes (
        id          INTEGER PRIMARY KEY,
        status      TEXT    NOT NULL CHECK (status IN ('ok', 'failed')),
        result      TEXT,
        error       TEXT,
        detail      TEXT,
        started_us  INTEGER NOT NULL,
        finished_us INTEGER NOT NULL,
        lane        INTEGER NOT NULL,
        db_conn     INTEGER NOT NULL
    );
    CREATE TABLE db_connections (
        id  INTEGER PRIMARY KEY AUTOINCREMENT,
        pid INTEGER NOT NULL
    );
    CREATE TABLE run (
        id TEXT NOT NULL
    );
";

/// One connection to the results database.
///
/// # Examples
///
/// An outcome is stored once: a second one for the same item is refused,
/// never an overwrite.
///
/// ```
/// use std::time::Instant;
///
/// use testbed::store::{DbTarget, Lane, Store, StoreError};
/// use testbed::workload::items;
///
/// let target = DbTarget::memory();
/// let mut store = Store::create_run(&target, Instant::now(), "example")?;
/// let item = &items(1, 7)[0];
/// let started = Instant::now();
/// store.record(item.id, Lane(0), started, &Ok(item.expected_result()))?;
/// let again = store.record(item.id, Lane(0), started, &Ok(item.expected_result()));
/// assert!(matches!(again, Err(StoreError::Duplicate(id)) if id == item.id));
/// let rows = store.rows()?;
/// assert_eq!((rows.len(), rows[0].lane), (1, Lane(0)));
/// # Ok::<(), StoreError>(())
/// ```
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    epoch: Instant,
    /// This connection's number in `db_connections`, once it has recorded.
    db_conn: Option<u32>,
    /// The database is a file that other processes may write to.
    shared_file: bool,
    progress: Progress,
    /// What [`Store::create`] found there and replaced.
    replaced: Option<PreviousRun>,
}

impl Store {
    /// Creates (or empties) the database for the run `run_id` and returns a
    /// connection to it. The harness calls this once per run; `--db` names
    /// an output file, so the results of an earlier run there are replaced,
    /// and [`Store::replaced`] says whose.
    pub fn create_run(
        target: &DbTarget,
        epoch: Instant,
        run_id: &str,
    ) -> Result<Store, StoreError> {
        let mut store = Store::open(target, epoch)?;
        store.conn.execute_batch("BEGIN IMMEDIATE")?;
        let created = run::previous(&store.conn).and_then(|replaced| {
            store.conn.execute_batch(SCHEMA)?;
            store.conn.execute_batch(turns::SCHEMA)?;
            store.conn.execute_batch(tasks::SCHEMA)?;
            store.conn.execute_batch(replay::SCHEMA)?;
            store
                .conn
                .execute("INSERT INTO run (id) VALUES (?1)", [run_id])?;
            Ok(replaced)
        });
        match created {
            Ok(replaced) => {
                store.conn.execute_batch("COMMIT")?;
                store.replaced = replaced;
                Ok(store)
            }
            Err(e) => {
                // Leave the file as it was; the error is the news.
                let _ = store.conn.execute_batch("ROLLBACK");
                Err(e.into())
            }
        }
    }

    /// [`Store::create_run`] with a fresh id ([`new_run_id`]).
    pub fn create(target: &DbTarget, epoch: Instant) -> Result<Store, StoreError> {
        Store::create_run(target, epoch, &new_run_id())
    }

    /// The earlier run whose results [`Store::create`] replaced, if there
    /// were any.
    pub fn replaced(&self) -> Option<&PreviousRun> {
        self.replaced.as_ref()
    }

    /// The id of the run the database now belongs to.
    pub fn run_id(&self) -> Result<Option<String>, StoreError> {
        Ok(run::recorded_id(&self.conn)?)
    }

    /// Opens another connection to a database made by [`Store::create`].
    /// Each process that records opens its own (02-fork opens one per child,
    /// *after* the fork: a connection must never cross a fork).
    pub fn open(target: &DbTarget, epoch: Instant) -> Result<Store, StoreError> {
        let conn = match target {
            DbTarget::Memory(uri) => Connection::open(uri)?,
            DbTarget::File(path) => {
                // Someone else's file is refused before SQLite opens it.
                let conn = mark::open_marked(path)?;
                // WAL lets readers and one writer work at once; NORMAL syncs
                // at checkpoints, not at every commit (results can be redone).
                let mode: String =
                    conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
                debug_assert_eq!(mode, "wal");
                conn.pragma_update(None, "synchronous", "NORMAL")?;
                conn
            }
        };
        conn.busy_timeout(BUSY_TIMEOUT)?;
        Ok(Store {
            conn,
            epoch,
            db_conn: None,
            shared_file: matches!(target, DbTarget::File(_)),
            progress: Progress::hidden(),
            replaced: None,
        })
    }

    /// Ticks `progress` on every recorded outcome.
    pub fn with_progress(mut self, progress: Progress) -> Store {
        self.progress = progress;
        self
    }

    /// The run's epoch: times are recorded relative to it.
    pub fn epoch(&self) -> Instant {
        self.epoch
    }

    /// Stores the outcome of `id`, which ran on `lane` from `started` until
    /// now.
    pub fn record(
        &mut self,
        id: ItemId,
        lane: Lane,
        started: Instant,
        outcome: &Outcome,
    ) -> Result<(), StoreError> {
        self.record_span(id, lane, started, Instant::now(), outcome)
    }

    /// Stores the outcome of `id`, which ran on `lane` from `started` until
    /// `finished`. For a stage that records a call some time after it
    /// ended: a pool that has already handed the connection to the next
    /// call must stamp the end it saw, or the two calls overlap on the
    /// connection's lane of the timeline.
    pub fn record_span(
        &mut self,
        id: ItemId,
        lane: Lane,
        started: Instant,
        finished: Instant,
        outcome: &Outcome,
    ) -> Result<(), StoreError> {
        let key = i64::try_from(id.0).map_err(|_| StoreError::IdTooLarge(id))?;
        let epoch = self.epoch;
        let micros = |t: Instant| t.saturating_duration_since(epoch).as_micros() as i64;
        let (status, result, error, detail) = match outcome {
            Ok(hash) => ("ok", Some(hash.to_string()), None, None),
            Err(failure) => (
                "failed",
                None,
                Some(failure.kind.as_str()),
                Some(failure.detail.as_str()),
            ),
        };
        // Closed by an interrupted run, which must not see a row appear
        // after it counted them.
        let progress = self.progress.clone();
        let _admitted = progress.admit();
        let db_conn = self.db_conn_number()?;
        // A file may be shared by several processes: take the write lock up
        // front (`BEGIN IMMEDIATE`), so a busy writer is waited for instead
        // of failing. An in-memory database has one writer, and a lone
        // `INSERT` is its own transaction. The statements are cached: on a
        // fast run, parsing `BEGIN`/`COMMIT` for every item showed up in
        // profiles.
        if self.shared_file {
            self.conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        }
        let inserted = self
            .conn
            .prepare_cached(
                "INSERT INTO outcomes
                 (id, status, result, error, detail, started_us, finished_us, lane, db_conn)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                key,
                status,
                result,
                error,
                detail,
                micros(started),
                micros(finished),
                lane.0,
                db_conn,
            ]);
        if let Err(e) = inserted {
            if self.shared_file {
                // Leave no transaction open behind a failed insert.
                self.conn.prepare_cached("ROLLBACK")?.execute([])?;
            }
            return Err(match e {
                rusqlite::Error::SqliteFailure(f, _)
                    if f.code == ErrorCode::ConstraintViolation =>
                {
                    StoreError::Duplicate(id)
                }
                other => other.into(),
            });
        }
        if self.shared_file {
            self.conn.prepare_cached("COMMIT")?.execute([])?;
        }
        self.progress.inc(outcome);
        Ok(())
    }

    /// This connection's number, registering it on first use.
    fn db_conn_number(&mut self) -> Result<u32, StoreError> {
        if let Some(n) = self.db_conn {
            return Ok(n);
        }
        self.conn.execute(
            "INSERT INTO db_connections (pid) VALUES (?1)",
            params![std::process::id()],
        )?;
        let n = u32::try_from(self.conn.last_insert_rowid()).unwrap_or(u32::MAX);
        self.db_conn = Some(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests;
