//! Reading a run back: every outcome, the outcomes so far of a run still
//! recording, and what each lane and database connection did. The report
//! is built from these, never from what a stage says it did.

use std::time::Instant;

use super::*;

impl Store {
    /// Every stored outcome, by id.
    pub fn rows(&self) -> Result<Vec<Row>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT id, status, result, error, detail, started_us, finished_us, lane, db_conn
             FROM outcomes ORDER BY id",
        )?;
        let raw = statement.query_map([], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Option<String>>(2)?,
                row.get::<_, Option<String>>(3)?,
                row.get::<_, Option<String>>(4)?,
                row.get::<_, i64>(5)?,
                row.get::<_, i64>(6)?,
                row.get::<_, u32>(7)?,
                row.get::<_, u32>(8)?,
            ))
        })?;
        let mut rows = Vec::new();
        for r in raw {
            let (id, status, result, error, detail, started_us, finished_us, lane, db_conn) = r?;
            let corrupt = |why: &str| StoreError::Corrupt {
                id,
                why: why.to_owned(),
            };
            let outcome = match (status.as_str(), result, error) {
                ("ok", Some(result), None) => Ok(result
                    .parse::<ResultHash>()
                    .map_err(|e| corrupt(&e.to_string()))?),
                ("failed", None, Some(kind)) => Err(Failure::new(
                    kind.parse::<ErrorKind>().map_err(|e| corrupt(&e))?,
                    detail.unwrap_or_default(),
                )),
                _ => return Err(corrupt("status, result and error disagree")),
            };
            rows.push(Row {
                id: ItemId(u64::try_from(id).map_err(|_| corrupt("negative id"))?),
                outcome,
                started_us: u64::try_from(started_us).unwrap_or(0),
                finished_us: u64::try_from(finished_us).unwrap_or(0),
                lane: Lane(lane),
                db_conn,
            });
        }
        Ok(rows)
    }

    /// Every outcome recorded so far, read while the run may still be
    /// recording (an interrupted run's account). In memory, the database
    /// is shared-cache, where a reader locks the table against writers:
    /// `read_uncommitted` takes no such lock, so the run is not disturbed.
    /// A file is in WAL mode, where readers never block writers anyway.
    pub fn rows_so_far(target: &DbTarget, epoch: Instant) -> Result<Vec<Row>, StoreError> {
        let store = Store::open(target, epoch)?;
        if let DbTarget::Memory(_) = target {
            store.conn.pragma_update(None, "read_uncommitted", true)?;
        }
        store.rows()
    }

    /// For each lane, how many outcomes it recorded and when its last one
    /// finished (µs since the epoch): how a stage whose workers are other
    /// processes sees which of them are stuck.
    pub fn lane_activity(&self) -> Result<Vec<(Lane, u64, u64)>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT lane, COUNT(*), MAX(finished_us) FROM outcomes GROUP BY lane")?;
        let lanes = statement.query_map([], |row| {
            Ok((
                Lane(row.get(0)?),
                u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0),
            ))
        })?;
        Ok(lanes.collect::<Result<_, _>>()?)
    }

    /// How many database connections recorded at least one outcome, across
    /// every process that shared the file.
    pub fn db_connections(&self) -> Result<u64, StoreError> {
        let n: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM db_connections", [], |row| row.get(0))?;
        Ok(n as u64)
    }
}
