//! Whose file `--db` names: a new one, this program's results, or someone
//! else's data, which is never touched.
//!
//! `--db` names an output, and a run replaces the results already there.
//! That is safe only for a file this program made: `app.db` of another
//! program may well have a table called `run` or `outcomes`. So a results
//! database carries a mark, SQLite's `PRAGMA application_id` (four bytes
//! of the file's header, at offset 68, meant for exactly this), set to
//! [`APPLICATION_ID`] when the file is made, and a file without it is
//! refused before anything is written.
//!
//! The check reads those bytes with a plain `read`, not through SQLite:
//! opening a database in WAL mode with SQLite creates `-wal` and `-shm`
//! files beside it, and may move another program's log into its file (a
//! checkpoint), which is the very write this check exists to prevent.
//!
//! Results files made before the mark existed carry none, and are refused
//! like any other: telling them apart would mean reading their tables, so
//! opening them with SQLite, with the writes above. Their results are
//! cheap to make again (one run); someone else's data is not. The message
//! says so.
//!
//! The mark is written before the file is switched to WAL mode
//! ([`super::Store::open`]), so it is in the file itself, never only in a
//! log a killed run left beside it.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The mark of a results database: `PRAGMA application_id`, the ASCII
/// bytes `ALDR` (async ladder) as a big-endian 32-bit integer, as SQLite
/// stores it.
pub const APPLICATION_ID: i32 = 0x414C_4452;

/// The first 16 bytes of every SQLite 3 database.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Where the header keeps the application id, and how long the header is.
const ID_OFFSET: usize = 68;
const HEADER: usize = 100;

/// What `--db` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// No file, or an empty one (as a lock or `touch` leaves): made now.
    New,
    /// A results database this program made.
    Ours,
}

/// Why a file is not this program's to write.
#[derive(Debug, thiserror::Error)]
pub enum Foreign {
    /// Not an SQLite database at all.
    #[error("is not an SQLite database")]
    NotSqlite,
    /// An SQLite database without the mark.
    #[error(
        "is an SQLite database this program did not make (its application_id is {0:#010x}, \
         not {APPLICATION_ID:#010x}); results files from before that mark are refused too"
    )]
    Unmarked(i32),
    /// The file cannot be read.
    #[error("cannot be read ({0})")]
    Unreadable(#[from] io::Error),
}

/// Checks what `--db path` names, for every binary that takes it: a
/// regular file this program made, or none yet (a new or empty file).
/// `Err` is the one line to refuse it with (exit status 2); nothing has
/// been written.
pub fn check(path: &Path) -> Result<Owner, String> {
    // SQLite keeps a database in a regular file and a journal beside it. A
    // device once took a whole run and then failed cryptically (`/dev/null`:
    // "disk I/O error"; `/dev/full`: "database or disk is full"), and left
    // a journal file in `/dev`.
    let kind = match std::fs::metadata(path) {
        Err(_) => return Ok(Owner::New), // Whether it can be made is found out later.
        Ok(meta) if meta.is_file() => return owner(path).map_err(|why| refusal(path, &why)),
        Ok(meta) if meta.is_dir() => "a directory",
        Ok(_) => "a device or other special file",
    };
    Err(format!(
        "--db {}: {kind}, not a file; the results are an SQLite database, which lives in a \
         regular file: give a file's path, e.g. --db results.db",
        path.display()
    ))
}

/// The one line a binary refuses `--db path` with (exit status 2).
pub fn refusal(path: &Path, why: &Foreign) -> String {
    format!(
        "--db {} {why}; it was left untouched: give a path of its own for the results (a new \
         file), or remove this one if nothing in it is needed",
        path.display()
    )
}

/// Opens `path` with SQLite if it is new or ours, marking a new one
/// (before WAL, so the mark goes into the file itself); refuses anyone
/// else's file before SQLite opens it.
pub(super) fn open_marked(path: &Path) -> Result<rusqlite::Connection, super::StoreError> {
    let owner = owner(path).map_err(|why| super::StoreError::Foreign {
        path: path.to_owned(),
        why,
    })?;
    let conn = rusqlite::Connection::open(path)?;
    if owner == Owner::New {
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    }
    Ok(conn)
}

/// Whether `path` is new, or a results database this program made; reads
/// the file's header and nothing else, and writes nothing.
pub fn owner(path: &Path) -> Result<Owner, Foreign> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Owner::New),
        Err(e) => return Err(e.into()),
    };
    let mut header = Vec::with_capacity(HEADER);
    file.by_ref().take(HEADER as u64).read_to_end(&mut header)?;
    if header.is_empty() {
        return Ok(Owner::New);
    }
    if header.len() < HEADER || !header.starts_with(MAGIC) {
        return Err(Foreign::NotSqlite);
    }
    let bytes: [u8; 4] = header[ID_OFFSET..ID_OFFSET + 4]
        .try_into()
        .expect("four bytes");
    match i32::from_be_bytes(bytes) {
        APPLICATION_ID => Ok(Owner::Ours),
        other => Err(Foreign::Unmarked(other)),
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    #[test]
    fn new_empty_marked_and_foreign_files_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        assert_eq!(owner(&path("none.db")).unwrap(), Owner::New);
        std::fs::write(path("empty.db"), b"").unwrap();
        assert_eq!(owner(&path("empty.db")).unwrap(), Owner::New);
        std::fs::write(path("notes.txt"), b"hello").unwrap();
        assert!(matches!(owner(&path("notes.txt")), Err(Foreign::NotSqlite)));

        let foreign = Connection::open(path("app.db")).unwrap();
        foreign
            .execute_batch("CREATE TABLE run (owner TEXT, budget INT)")
            .unwrap();
        drop(foreign);
        let refused = owner(&path("app.db")).unwrap_err();
        assert!(matches!(refused, Foreign::Unmarked(0)), "{refused}");
        assert!(refused.to_string().contains("did not make"), "{refused}");

        let ours = Connection::open(path("ours.db")).unwrap();
        ours.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        drop(ours);
        assert_eq!(owner(&path("ours.db")).unwrap(), Owner::Ours);
    }
}
