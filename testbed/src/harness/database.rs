//! The run's results database: where it lives, and the connection that
//! keeps an in-memory one alive.
//!
//! With `--db` it is that file (locked by preflight); without, a stage
//! that records from several connections (or processes) gets a file in a
//! temporary directory, removed when the run's reader drops, and every
//! other stage an in-memory database.
//!
//! Not here: the database itself (`crate::store`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use tempfile::TempDir;

use crate::cli::Settings;
use crate::stage::Stage;
use crate::store::{DbTarget, Row, Store, StoreError};

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
        let creator = Store::create(&target, Instant::now()).map_err(|e| match &settings.db {
            Some(path) => unusable(path, e),
            None => e.into(),
        })?;
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

/// Why `--db` could not be made into this run's database, in words that
/// say what is wrong with which file and what to do (SQLite's own,
/// "attempt to write a readonly database" or "Invalid column type Integer
/// at index: 0, name: id", name neither). A usage error: nothing has run
/// yet, and a different `--db` fixes it.
fn unusable(path: &Path, error: StoreError) -> HarnessError {
    use rusqlite::ErrorCode;
    if let StoreError::Foreign { why, .. } = &error {
        return HarnessError::Usage(crate::store::mark::refusal(path, why));
    }
    let path = path.display();
    let StoreError::Sqlite(sqlite) = &error else {
        return error.into();
    };
    let why = match sqlite.sqlite_error_code() {
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::CannotOpen) => {
            format!(
                "cannot be written ({sqlite}): give a path in a folder you may write to (SQLite \
                 also writes a journal beside the file)"
            )
        }
        Some(ErrorCode::DiskFull) => {
            format!("its disk is full ({sqlite}): free space, or give a path on another disk")
        }
        Some(ErrorCode::NotADatabase) => format!(
            "is not an SQLite database ({sqlite}): a run replaces only an earlier run's \
             results; give a new path, or remove the file"
        ),
        Some(ErrorCode::SystemIoFailure) => {
            format!("cannot be read or written ({sqlite}): give a regular file on a local disk")
        }
        // The file is a database, but its tables are not a run's (a `run`
        // table with other columns): someone else's data, not replaced.
        _ => format!(
            "holds tables this program did not write ({sqlite}), and they were not replaced: \
             give a new path, or remove the file"
        ),
    };
    HarnessError::Usage(format!("--db {path} {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: std::ffi::c_int) -> StoreError {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            None,
        ))
    }

    #[test]
    fn each_unusable_database_says_what_is_wrong_and_what_to_do() {
        let path = Path::new("/results/r.db");
        for (code, words) in [
            // A read-only folder: once "attempt to write a readonly database".
            (rusqlite::ffi::SQLITE_READONLY, "folder you may write to"),
            (rusqlite::ffi::SQLITE_FULL, "disk is full"),
            (rusqlite::ffi::SQLITE_NOTADB, "not an SQLite database"),
            (rusqlite::ffi::SQLITE_IOERR, "regular file"),
        ] {
            let HarnessError::Usage(line) = unusable(path, sqlite(code)) else {
                panic!("{code}: a usage error");
            };
            assert!(line.starts_with("--db /results/r.db "), "{line}");
            assert!(line.contains(words), "{code}: {line}");
        }
    }
}
