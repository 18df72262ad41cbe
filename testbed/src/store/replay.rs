//! What a run's page needs besides the outcomes, kept in the database so a
//! run can be reread long after it ended (the `report` binary): its
//! verified report as the run printed it, and the server's service times
//! (table `replay`, one row). With the outcomes and the loop's turns, that
//! is everything the page draws, so a page made from the database is the
//! page the run wrote.
//!
//! Rereading never writes: [`Store::open_read_only`] opens the file
//! read-only, and immutable when no write-ahead log is left beside it (a
//! run that ended cleanly), so not even SQLite's shared-memory file is
//! made.

use std::path::Path;
use std::time::Instant;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use super::{Store, StoreError};
use crate::progress::Progress;

/// The table, made anew with the run's others by `Store::create_run`.
pub(super) const SCHEMA: &str = "
    DROP TABLE IF EXISTS replay;
    CREATE TABLE replay (
        report  TEXT NOT NULL,
        service TEXT NOT NULL
    );
";

impl Store {
    /// Keeps the run's report and the server's service times, each as JSON
    /// (once, after the report is built; `crate::timeline::keep` makes
    /// them).
    pub fn record_replay(&mut self, report: &str, service: &str) -> Result<(), StoreError> {
        self.conn.execute("DELETE FROM replay", [])?;
        self.conn.execute(
            "INSERT INTO replay (report, service) VALUES (?1, ?2)",
            params![report, service],
        )?;
        Ok(())
    }

    /// The report and service times [`Store::record_replay`] kept, as
    /// JSON, or `None` for a run that ended before it could keep them
    /// (interrupted, or made before runs kept them).
    pub fn replay(&self) -> Result<Option<(String, String)>, StoreError> {
        let has: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'replay'",
            [],
            |row| row.get(0),
        )?;
        if has == 0 {
            return Ok(None);
        }
        Ok(self
            .conn
            .query_row("SELECT report, service FROM replay", [], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()?)
    }

    /// Opens the results file at `path` to read it, never to write it.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let wal = {
            let mut name = path.as_os_str().to_owned();
            name.push("-wal");
            std::path::PathBuf::from(name)
        };
        let left_a_log = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
        // A log left beside the file holds rows not yet in it: read it too
        // (read-only). Without one, `immutable` tells SQLite the file
        // cannot change, so it takes no lock and makes no file.
        let uri = format!(
            "file:{}?mode=ro{}",
            uri_path(path),
            if left_a_log { "" } else { "&immutable=1" }
        );
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(uri, flags)?;
        Ok(Store {
            conn,
            epoch: Instant::now(),
            db_conn: None,
            shared_file: false,
            progress: Progress::hidden(),
            replaced: None,
        })
    }
}

/// `path` for a `file:` URI: the characters a URI gives a meaning to,
/// percent-encoded.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for byte in path.as_os_str().as_encoded_bytes() {
        match byte {
            b'?' | b'#' | b'%' | b'&' | b'=' | b' ' | 0x80..=0xff => {
                out.push_str(&format!("%{byte:02X}"));
            }
            _ => out.push(char::from(*byte)),
        }
    }
    out
}
