//! One run per results file at a time: a lock held for the run's life.
//!
//! Two runs on one `--db` would each start by emptying the file, then
//! record into it side by side, and each would verify the other's rows as
//! its own: a report of `lost 2` for a run that lost nothing, and a second
//! run "verified" against someone else's work. So a run takes an exclusive
//! `flock(2)` on the file before it touches it, and keeps it until its
//! report is built; a second run finds it taken and is refused.
//!
//! `flock` locks and SQLite's own locks (POSIX `fcntl` record locks) do not
//! interact on Linux. One rule matters, though: closing *any* descriptor of
//! a file drops every POSIX lock the process holds on it, so the lock's
//! descriptor must close after the process's SQLite connections to the
//! file, never while one is in a transaction. [`DbLock`] is dropped last
//! by the harness for that reason. A forked child inherits the lock (it
//! belongs to the open file, which the child shares) and closes its copy
//! first thing, before it opens a connection of its own.
//!
//! Not here: the database itself (`store.rs`).

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

/// The exclusive lock on a results file. Released when dropped, or when the
/// process ends, however it ends.
#[derive(Debug)]
pub struct DbLock {
    path: PathBuf,
    /// Held for its lock; never read or written.
    _file: File,
}

/// Why a results file could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another run holds it.
    #[error(
        "{} is in use by another run; wait for it to end, or give this one another --db",
        .0.display()
    )]
    InUse(PathBuf),
    /// The file could not be opened or locked at all.
    #[error("cannot open the results database {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        error: io::Error,
    },
}

impl DbLock {
    /// Locks `path`, creating it (empty) if it does not exist; fails at
    /// once, without waiting, if another process holds it.
    pub fn acquire(path: &Path) -> Result<DbLock, LockError> {
        let io_error = |error| LockError::Io {
            path: path.to_owned(),
            error,
        };
        // Opened for reading and writing but never truncated: an empty file
        // is what SQLite makes a new database from, and an existing one is
        // the earlier run's, which `Store::create` replaces and reports.
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io_error)?;
        match file.try_lock() {
            Ok(()) => Ok(DbLock {
                path: path.to_owned(),
                _file: file,
            }),
            Err(TryLockError::WouldBlock) => Err(LockError::InUse(path.to_owned())),
            Err(TryLockError::Error(e)) => Err(io_error(e)),
        }
    }

    /// The locked file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() -> Result<(), LockError> {
        let dir = tempfile::tempdir().map_err(|error| LockError::Io {
            path: PathBuf::new(),
            error,
        })?;
        let path = dir.path().join("results.db");
        let first = DbLock::acquire(&path)?;
        assert_eq!(first.path(), path);
        // A second open file description, as another process would have.
        let second = DbLock::acquire(&path).expect_err("the file is locked");
        assert!(matches!(second, LockError::InUse(_)), "{second}");
        assert!(second.to_string().contains("in use by another run"));
        drop(first);
        DbLock::acquire(&path).map(drop)
    }
}
