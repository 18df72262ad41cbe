//! The loop's turns in the database: table `loop_turns`, one row per
//! recorded wake-up, and `loop_log`, one row when the stage has an event
//! loop at all (how many turns it kept and dropped). A stage without a loop
//! (01-sync, 02-fork) leaves `loop_log` empty, which is how a page knows to
//! say so.
//!
//! The turns are written once, after the stage returns, in one
//! transaction: the loop itself only pushes onto a vector
//! ([`crate::turns::TurnLog`]).

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};
use crate::turns::{LoopTurns, Turn};

/// The tables, made anew with the run's others by `Store::create_run`.
pub(super) const SCHEMA: &str = "
    DROP TABLE IF EXISTS loop_turns;
    DROP TABLE IF EXISTS loop_log;
    CREATE TABLE loop_turns (
        seq      INTEGER PRIMARY KEY,
        woke_us  INTEGER NOT NULL,
        slept_us INTEGER NOT NULL,
        busy_us  INTEGER NOT NULL,
        ready    INTEGER NOT NULL,
        timers   INTEGER NOT NULL,
        ran      INTEGER NOT NULL,
        done     INTEGER NOT NULL
    );
    CREATE TABLE loop_log (
        kept    INTEGER NOT NULL,
        dropped INTEGER NOT NULL
    );
";

impl Store {
    /// Stores a loop's turns (once per run, after the stage returned).
    pub fn record_turns(&mut self, log: &LoopTurns) -> Result<(), StoreError> {
        let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let tx = self.conn.transaction()?;
        {
            let mut insert = tx.prepare(
                "INSERT INTO loop_turns (woke_us, slept_us, busy_us, ready, timers, ran, done)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for t in &log.turns {
                insert.execute(params![
                    as_i64(t.woke_us),
                    as_i64(t.slept_us),
                    as_i64(t.busy_us),
                    t.ready,
                    t.timers,
                    t.ran,
                    t.done
                ])?;
            }
            tx.execute(
                "INSERT INTO loop_log (kept, dropped) VALUES (?1, ?2)",
                params![log.turns.len() as i64, as_i64(log.dropped)],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The loop's turns, or `None` when the stage has no event loop (or the
    /// database predates the recording).
    pub fn turns(&self) -> Result<Option<LoopTurns>, StoreError> {
        let has_log: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'loop_log'",
            [],
            |row| row.get(0),
        )?;
        if has_log == 0 {
            return Ok(None);
        }
        let dropped: Option<i64> = self
            .conn
            .query_row("SELECT dropped FROM loop_log", [], |row| row.get(0))
            .optional()?;
        let Some(dropped) = dropped else {
            return Ok(None);
        };
        let mut statement = self.conn.prepare(
            "SELECT woke_us, slept_us, busy_us, ready, timers, ran, done
             FROM loop_turns ORDER BY seq",
        )?;
        let u = |n: i64| u64::try_from(n).unwrap_or(0);
        let turns = statement
            .query_map([], |row| {
                Ok(Turn {
                    woke_us: u(row.get(0)?),
                    slept_us: u(row.get(1)?),
                    busy_us: u(row.get(2)?),
                    ready: row.get(3)?,
                    timers: row.get(4)?,
                    ran: row.get(5)?,
                    done: row.get(6)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(LoopTurns {
            turns,
            dropped: u(dropped),
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::store::{DbTarget, Store};
    use crate::turns::TurnLog;

    #[test]
    fn turns_go_in_and_come_back_and_a_run_without_a_loop_has_none() {
        let target = DbTarget::memory();
        let epoch = Instant::now();
        let mut store = Store::create_run(&target, epoch, "test").unwrap();
        assert_eq!(store.turns().unwrap(), None, "no loop recorded yet");
        let mut log = TurnLog::with_cap(2);
        for ready in 1..=3 {
            log.sleeping();
            log.woke(ready);
            log.timers(ready);
        }
        let turns = log.since(epoch - Duration::from_millis(1));
        store.record_turns(&turns).unwrap();
        assert_eq!(store.turns().unwrap(), Some(turns.clone()));
        assert_eq!((turns.turns.len(), turns.dropped), (2, 1));
        // A new run starts with no turns.
        let again = Store::create_run(&target, epoch, "next").unwrap();
        assert_eq!(again.turns().unwrap(), None);
    }
}
