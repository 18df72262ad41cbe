//! SIGINT and SIGTERM during a run: the run ends as the signal asks, and
//! says so, with what it had recorded.
//!
//! Left to their default action, both signals end the process at once and
//! silently: the database is consistent (one commit per item), but nothing
//! on screen says the run was cut short, how far it got, or where its
//! results are. So a stage binary blocks both first thing
//! ([`Signals::block`], before any thread exists: every thread started
//! later inherits the mask) and collects them as ordinary data through a
//! `signalfd`, the way `slow-server` does with `sigwait`. No handler runs
//! in the middle of anything.
//!
//! Who collects them depends on the stage:
//!
//! - in a stage that runs in this process, the watchdog's thread
//!   ([`crate::watchdog::Monitor`]) takes the signal, prints the account
//!   and the partial report, and ends the process with the signal's exit
//!   status; the stage cannot be stopped from outside, and need not be;
//! - a stage that forks has no such thread: its parent takes the signal
//!   itself, stops its children, raises it again (it stays pending, since
//!   it is blocked) and returns; the harness then finds it and does the
//!   same.
//!
//! Not here: what an interrupted child does (it dies: the default action,
//! which 02-fork's children get back).

use std::fmt::Write as _;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::PathBuf;
use std::time::Instant;

use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};

use crate::cli::Settings;
use crate::duration::format_duration;
use crate::progress::Progress;
use crate::report::{Report, RunFacts};
use crate::store::{DbTarget, Store};
use crate::workload;

/// The signals a run reports before it ends.
pub const STOPPING: [Signal; 2] = [Signal::SIGINT, Signal::SIGTERM];

/// The exit status of a process ended by `signal`, as a shell reports it:
/// 128 plus the signal's number (130 for SIGINT, 143 for SIGTERM).
pub fn exit_status(signal: Signal) -> u8 {
    // Signal numbers are below 65.
    128 + signal as u8
}

/// SIGINT and SIGTERM, blocked and readable as data.
#[derive(Debug)]
pub struct Signals {
    fd: SignalFd,
}

impl Signals {
    /// Blocks SIGINT and SIGTERM in the calling thread, and so in every
    /// thread it starts from now on, and opens a descriptor to read them.
    /// Call it before any thread exists: a thread started earlier keeps
    /// the default action, and the signal may go to it.
    pub fn block() -> io::Result<Signals> {
        let mut mask = SigSet::empty();
        for signal in STOPPING {
            mask.add(signal);
        }
        mask.thread_block()?;
        // Non-blocking: `take` looks, it does not wait. Close-on-exec: a
        // program this one runs has nothing to do with it.
        let flags = SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC;
        Ok(Signals {
            fd: SignalFd::with_flags(&mask, flags)?,
        })
    }

    /// The signal that arrived, if one did (it is consumed).
    pub fn take(&self) -> Option<Signal> {
        let info = self.fd.read_signal().ok()??;
        Signal::try_from(i32::try_from(info.ssi_signo).ok()?).ok()
    }
}

impl AsFd for Signals {
    /// Readable when a signal is pending.
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// What it takes to say what an interrupted run recorded, and where.
#[derive(Debug, Clone)]
pub struct RunRecord {
    /// The stage's name.
    pub stage: &'static str,
    /// The run's settings.
    pub settings: Settings,
    /// The connections the run could have in flight: the stage's own
    /// count (`Stage::connections`: one for 01-sync, whatever `--conns`
    /// says), at most one an item.
    pub concurrency: usize,
    /// Its database.
    pub target: DbTarget,
    /// When it started.
    pub epoch: Instant,
    /// A temporary directory holding the database, removed with it.
    pub scratch: Option<PathBuf>,
    /// The run's count, and the gate that stops its recording.
    pub progress: Progress,
}

impl RunRecord {
    /// The account of a run ended by `signal`: one line saying so, with how
    /// many items were recorded and where, then the report of those items
    /// (verified like any report: the others have no row because the run
    /// was stopped, not lost). Stops this process's recording first, and
    /// removes a temporary database directory: the process ends next.
    pub fn interrupted(&self, signal: Signal) -> String {
        let elapsed = self.epoch.elapsed();
        // Nothing more is recorded in this process from here on, so the
        // count below is the count in the database.
        self.progress.close();
        let rows = Store::rows_so_far(&self.target, self.epoch);
        let where_ = match (&self.target, &self.scratch) {
            (DbTarget::File(path), None) => path.display().to_string(),
            (DbTarget::File(_), Some(_)) => {
                "a temporary database, removed now (--db keeps results)".to_owned()
            }
            (DbTarget::Memory(_), _) => {
                "memory, gone with this process (--db keeps results)".to_owned()
            }
        };
        let items = self.settings.items;
        let mut text = String::new();
        let rows = match rows {
            Ok(rows) => rows,
            Err(e) => {
                let _ = writeln!(
                    text,
                    "{}: interrupted by {signal} after {}; what was recorded in {where_} \
                     cannot be read: {e}",
                    self.stage,
                    format_duration(elapsed)
                );
                return text;
            }
        };
        let _ = writeln!(
            text,
            "{}: interrupted by {signal} after {}: {} of {items} items recorded in {where_}; \
             the report of those {} follows",
            self.stage,
            format_duration(elapsed),
            rows.len(),
            rows.len()
        );
        let recorded: std::collections::BTreeSet<_> = rows.iter().map(|row| row.id).collect();
        let list: Vec<_> = workload::items(items, self.settings.seed)
            .into_iter()
            .filter(|item| recorded.contains(&item.id))
            .collect();
        let embedded = self.settings.server.is_none();
        let db_connections: std::collections::BTreeSet<u32> =
            rows.iter().map(|row| row.db_conn).collect();
        let facts = RunFacts {
            concurrency: self.concurrency,
            elapsed,
            mean_service: self.settings.latency.mean(),
            faults: embedded.then_some((
                self.settings.faults.with_outage(self.settings.outage),
                self.settings.seed,
            )),
            external_server: !embedded,
            db_connections: db_connections.len() as u64,
            ..RunFacts::new(self.stage, self.settings.phases)
        };
        text.push_str(&Report::build(&list, &rows, facts).to_string());
        // A timeline draws a whole run, with the server's record of it, which
        // a stopped run does not have: not written, and said so, rather
        // than a reader looking for a file that never came.
        if let Some(path) = &self.settings.timeline {
            let _ = writeln!(
                text,
                "  timeline     {} not written: the run was interrupted; let a run end to \
                 draw it",
                path.display()
            );
        }
        if let Some(dir) = &self.scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_statuses_are_the_shells() {
        assert_eq!(exit_status(Signal::SIGINT), 130);
        assert_eq!(exit_status(Signal::SIGTERM), 143);
    }
}
