//! The run's results database: where it lives, and the connection that
//! keeps an in-memory one alive.
//!
//! With `--db` it is that file (locked by preflight); without, a stage
//! that records from several connections (or processes) gets a file in a
//! temporary directory, removed when the run's reader drops, and every
//! other stage an in-memory database.
//!
//! Not here: the database itself (`crate::store`).

use std::path::PathBuf;
use std::time::Instant;

use tempfile::TempDir;

use crate::cli::Settings;
use crate::stage::Stage;
use crate::store::{DbTarget, Row, Store};

use super::HarnessError;

/// The database a run records into.
pub(super) struct Results {
    /// Where it is.
    pub target: DbTarget,
    /// What the report should say about it (an earlier run's results
    /// replaced).
    pub notes: Vec<String>,
    /// The directory of a temporary file database.
    scratch: Option<TempDir>,
    /// An in-memory database lives while a connection is open: this one.
    keeper: Option<Store>,
}

/// The database after the run, open for reading; a temporary one is
/// removed when this drops.
pub(super) struct Reader {
    pub store: Store,
    _scratch: Option<TempDir>,
}

impl Results {
    /// Creates the database (its tables, and the run's id).
    pub fn create(stage: &dyn Stage, settings: &Settings) -> Result<Results, HarnessError> {
        let mut scratch = None;
        let target = match &settings.db {
            Some(path) => DbTarget::File(path.clone()),
            None if stage.needs_db_file() => {
                let dir = tempfile::tempdir().map_err(HarnessError::Scratch)?;
                let target = DbTarget::File(dir.path().join("results.db"));
                scratch = Some(dir);
                target
            }
            None => DbTarget::memory(),
        };
        let creator = Store::create(&target, Instant::now())?;
        let mut notes = Vec::new();
        if let (Some(previous), Some(path)) = (creator.replaced(), target.path()) {
            notes.push(format!(
                "{} held the results of {previous}: this run replaced them",
                path.display()
            ));
        }
        // A file does not need the creating connection, and a forking
        // stage must not carry an open SQLite connection across fork():
        // close it, explicitly (a value that is not moved lives to the end
        // of its scope, and this one would be open across every fork).
        let keeper = match target {
            DbTarget::Memory(_) => Some(creator),
            DbTarget::File(_) => {
                drop(creator);
                None
            }
        };
        Ok(Results {
            target,
            notes,
            scratch,
            keeper,
        })
    }

    /// The temporary directory, for an interrupted run to remove.
    pub fn scratch_dir(&self) -> Option<PathBuf> {
        self.scratch.as_ref().map(|dir| dir.path().to_owned())
    }

    /// Opens the database for reading (the kept connection, for one in
    /// memory) and reads every stored outcome.
    pub fn read(self, epoch: Instant) -> Result<(Reader, Vec<Row>), HarnessError> {
        let store = match self.keeper {
            Some(store) => store,
            None => Store::open(&self.target, epoch)?,
        };
        let rows = store.rows()?;
        Ok((
            Reader {
                store,
                _scratch: self.scratch,
            },
            rows,
        ))
    }
}
