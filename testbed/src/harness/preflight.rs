//! Everything a run checks before it starts, so that settings that cannot
//! work are one line and exit status 2, not a hang, a panic or a result
//! destroyed at the end.
//!
//! - the stage can run on this machine at all ([`Stage::available`]: no
//!   io_uring, no 08-uring);
//! - a fault after which only a read timeout helps (`hang`, `blackhole`)
//!   needs one, and a stage that has one;
//! - `--faults` and `--outage` are the embedded server's: with `--server`,
//!   that server decides;
//! - the descriptors the run needs fit `RLIMIT_NOFILE`
//!   ([`crate::limits`]);
//! - `--db` is a regular file (or none yet) that this program made
//!   (`store/mark.rs`), not the `--timeline` file,
//!   the timeline's file can be written, and no other run holds the
//!   database ([`DbLock`]).
//!
//! It also settles what the run will use that the flags leave open: the
//! read timeout against an external server, and the warnings a reader of
//! the report should see.
//!
//! Not here: running anything (`harness.rs`).

use std::path::Path;
use std::time::Duration;

use crate::cli::{Settings, TIMELINE_ENDINGS, check_output, same_file};
use crate::duration::format_duration;
use crate::limits::{DescriptorNeed, fd_limits, raise_fd_limit};
use crate::stage::{ReadTimeoutSupport, Stage};
use crate::store::{DbLock, LockError, mark};

use super::HarnessError;

/// The read timeout a stage that can time out uses against an external
/// server when `--read-timeout` is not given: a server we did not start
/// may never answer, and without a bound one lost reply stalls a run
/// forever. Far above any service time a run simulates on purpose, so a
/// slow server is still measured, not cut short.
pub const DEFAULT_EXTERNAL_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// What the checks settled.
#[derive(Debug)]
pub(super) struct Preflight {
    /// The lock on `--db`, held until the report is built.
    pub lock: Option<DbLock>,
    /// The read timeout the run uses.
    pub read_timeout: Option<Duration>,
    /// What the report should tell its reader.
    pub notes: Vec<String>,
}

/// Refuses settings that cannot work, before anything starts.
pub(super) fn check(stage: &dyn Stage, settings: &Settings) -> Result<Preflight, HarnessError> {
    let usage = |message: String| Err(HarnessError::Usage(message));
    stage.available().map_err(HarnessError::Usage)?;
    if let (Some(_), ReadTimeoutSupport::Missing(why)) =
        (settings.read_timeout, stage.read_timeout())
    {
        return usage(format!(
            "{} has no read timeout ({why}); drop --read-timeout",
            stage.name()
        ));
    }
    if let Some(addr) = settings.server {
        if !settings.faults.is_none() {
            return usage(format!(
                "--faults is for the embedded server; the server at {addr} decides its own \
                 faults (start it with slow-server --faults {})",
                settings.faults
            ));
        }
        if let Some(outage) = settings.outage {
            return usage(format!(
                "--outage is for the embedded server; the server at {addr} decides its own \
                 (start it with slow-server --outage {outage})"
            ));
        }
    }
    if let Some(fault) = settings.faults.needing_read_timeout()
        && settings.read_timeout.is_none()
    {
        let hint = match stage.read_timeout() {
            ReadTimeoutSupport::Enforced => "add --read-timeout (e.g. 100ms)".to_owned(),
            ReadTimeoutSupport::Missing(why) => format!("this stage has no read timeout ({why})"),
        };
        return usage(format!(
            "--faults {fault} needs a read timeout, or a request it hits waits forever: {hint}"
        ));
    }
    check_descriptors(stage, settings)?;
    check_paths(settings)?;
    let lock = match &settings.db {
        Some(path) => Some(DbLock::acquire(path).map_err(|e| match e {
            LockError::InUse(_) | LockError::Io { .. } => HarnessError::Usage(e.to_string()),
        })?),
        None => None,
    };

    let mut notes = Vec::new();
    let mut read_timeout = settings.read_timeout;
    if settings.server.is_some() && read_timeout.is_none() && stage.read_timeout().is_enforced() {
        read_timeout = Some(DEFAULT_EXTERNAL_READ_TIMEOUT);
        notes.push(format!(
            "no --read-timeout against an external server: a request fails as `timeout` after \
             {} (the default), rather than waiting forever for a reply that may never come",
            format_duration(DEFAULT_EXTERNAL_READ_TIMEOUT)
        ));
    }
    if let Some(note) = crowded_processes(stage, settings, read_timeout) {
        notes.push(note);
    }
    Ok(Preflight {
        lock,
        read_timeout,
        notes,
    })
}

/// Checks the run's descriptors against `RLIMIT_NOFILE`, raised first as
/// far as it goes: the client and an embedded server in this process share
/// one limit; a forked server has one of its own, as large.
fn check_descriptors(stage: &dyn Stage, settings: &Settings) -> Result<(), HarnessError> {
    // An embedded server and its client share one descriptor limit; the
    // soft limit (often 1,024) is far below what thousands of connections
    // need, and raising it to the hard limit needs no privilege.
    let _ = raise_fd_limit();
    let Ok((soft, hard)) = fd_limits() else {
        // Nothing to check against; the run finds out as it goes.
        return Ok(());
    };
    let conns = stage.connections(settings.conns).min(settings.items) as u64;
    let per_conn = stage.descriptors_per_conn();
    let embedded = settings.server.is_none();
    let here = u64::from(embedded && !stage.forks());
    let need = DescriptorNeed {
        client: conns * per_conn,
        server: conns * here,
    };
    need.check(soft, hard, conns, per_conn + here)
        .map_err(HarnessError::Usage)?;
    if embedded && stage.forks() {
        let forked = DescriptorNeed {
            client: 0,
            server: conns,
        };
        forked
            .check(soft, hard, conns, 1)
            .map_err(|why| HarnessError::Usage(format!("the forked server: {why}")))?;
    }
    Ok(())
}

/// `--db` and `--timeline` name different files, and the timeline can be
/// written: a run must not end by destroying its results, or by failing
/// to save its picture after all the work.
fn check_paths(settings: &Settings) -> Result<(), HarnessError> {
    if let Some(db) = &settings.db {
        check_db(db)?;
    }
    let Some(timeline) = &settings.timeline else {
        return Ok(());
    };
    if let Some(db) = &settings.db
        && same_file(db, timeline)
    {
        return Err(HarnessError::Usage(format!(
            "--db and --timeline are the same file ({}): the timeline would overwrite the \
             results; give them different paths",
            timeline.display()
        )));
    }
    check_output("--timeline", timeline, TIMELINE_ENDINGS).map_err(HarnessError::Usage)
}

/// `--db` names a regular file this program made, or none yet
/// ([`mark::check`]).
fn check_db(db: &Path) -> Result<(), HarnessError> {
    mark::check(db).map(drop).map_err(HarnessError::Usage)
}

/// A warning for a stage whose workers are processes, when there are more
/// of them than CPUs and a read timeout to miss: a worker waiting for a
/// CPU is not reading, and the wait counts against its timeout, so
/// `timeout` failures appear that the server never caused.
fn crowded_processes(
    stage: &dyn Stage,
    settings: &Settings,
    read_timeout: Option<Duration>,
) -> Option<String> {
    let timeout = read_timeout?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = settings.conns.min(settings.items);
    (stage.forks() && workers > cpus).then(|| {
        format!(
            "warning: {workers} worker processes on {cpus} CPUs cannot all run at once; the \
             time a worker waits for a CPU counts against its {} read timeout, so expect \
             timeouts the server did not cause (fewer --conns, or a longer --read-timeout)",
            format_duration(timeout)
        )
    })
}
