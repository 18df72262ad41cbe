//! Stage 4: one thread waits on every connection at once.
//!
//! Stage 3 keeps N connections busy from one process, but it *visits* them
//! in a fixed order: when the connection it waits on is slow, replies that
//! already arrived on the others sit unread. The source article's answer is
//! to ask the kernel "which of these are ready?" with `select(2)` (Perl's
//! `IO::Select`) and to serve whichever is: a pool of connections with one
//! waiting point, the shape of every event loop since.
//!
//! # Layout
//!
//! Read in this order:
//!
//! - [`event`]: the shared vocabulary (`Token`, `Interest`, `Event`);
//! - [`selector`]: the contract, and the run-time choice between three
//!   backends with the same API, [`fd_set`] (`select(2)`), [`poll`] and
//!   [`epoll`], each a `Poller` in its own file (the only `unsafe` code is
//!   in the first two, which keep their list of descriptors in an
//!   `InterestList`, `interest_list.rs`; `sys.rs` holds the two rules every
//!   system call follows; both are private to the crate);
//! - [`nonblocking`]: the two rules every non-blocking socket follows here
//!   and in every later rung (when a read has emptied the socket, when a
//!   `connect` has finished);
//! - [`outbox`] and [`connection`]: one non-blocking connection (read what
//!   is there, queue what does not fit, a `connect` that finishes later);
//! - [`exchange`]: one item's conversation as a state machine;
//! - [`slot`]: a connection carrying one item, turning events into progress;
//! - [`pool`]: [`SlotPool`], the source article's `Pool`, its loop and its policy;
//! - this file: the stage, which feeds every item to the pool and records
//!   each outcome from its callback.
//!
//! Not here: timeouts of any kind (stage 5, which builds on [`slot`],
//! [`connection`] and [`selector`]), and threads: everything here runs on
//! the caller's thread.

#![deny(unsafe_code)]

pub mod connection;
pub mod epoll;
pub mod event;
pub mod exchange;
#[allow(unsafe_code)] // The lesson is the system call: libc::select, FD_SET.
pub mod fd_set;
mod interest_list;
pub mod nonblocking;
pub mod outbox;
#[allow(unsafe_code)] // The lesson is the system call: libc::poll.
pub mod poll;
pub mod pool;
pub mod selector;
pub mod slot;
mod sys;

use std::cell::RefCell;

use testbed::stage::{ReadTimeoutSupport, RunStats, Scenario, Stage, StageError};
use testbed::store::{Lane, StoreError};

use crate::pool::{FinishedItem, PoolConfig, SlotPool};
pub use crate::selector::{Backend, BackendArg, Selector};

/// The select stage: a pool of `--conns` connections on one selector.
///
/// # Examples
///
/// The stage as the binary runs it, once per backend, on an embedded slow
/// server:
///
/// ```
/// use select::{Backend, Select};
/// use testbed::cli::Settings;
/// use testbed::harness::execute;
///
/// let settings = Settings {
///     items: 20,
///     conns: 5,
///     latency: "1ms".parse().expect("a latency"),
///     ..Settings::default()
/// };
/// for backend in [Backend::Select, Backend::Poll, Backend::Epoll] {
///     let report = execute(&Select { backend }, &settings)?.report;
///     assert_eq!((report.ok, report.lost, report.wrong), (20, 0, 0));
///     assert_eq!(report.stage_stats["backend"], backend.as_str());
/// }
/// # Ok::<(), testbed::harness::HarnessError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Select {
    /// Which system call waits (`--backend`).
    pub backend: Backend,
}

impl Stage for Select {
    fn name(&self) -> &'static str {
        "select"
    }

    /// No. The loop can wait until the earliest deadline (`next_timeout`
    /// does exactly that for `dispose`), but a timed-out request leaves its
    /// connection with a late reply still to come, which must then be
    /// closed and replaced: that bookkeeping, with the other timeouts a
    /// pool needs, is stage 5's lesson.
    fn read_timeout(&self) -> ReadTimeoutSupport {
        ReadTimeoutSupport::Missing(
            "stage 4 keeps no deadlines per request; timeouts are stage 5's lesson: try 05-pool",
        )
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        // ANCHOR: run
        let store = RefCell::new(scenario.open_store()?);
        // A callback cannot return an error to the loop that called it, so
        // the first database error is parked here and checked after each
        // submit: the price of callbacks.
        let failed: RefCell<Option<StoreError>> = RefCell::new(None);
        let record = |done: FinishedItem| {
            let lane = Lane::of(done.slot.index());
            let stored = store
                .borrow_mut()
                .record(done.item, lane, done.started, &done.outcome);
            if let Err(e) = stored {
                failed.borrow_mut().get_or_insert(e);
            }
        };
        let config = PoolConfig {
            server: scenario.server,
            size: scenario.conns,
            phases: scenario.phases,
        };
        let mut pool = SlotPool::new(Selector::new(self.backend)?, config);
        for item in &scenario.items {
            pool.submit(item.clone(), Box::new(record))
                .map_err(|e| stage_error(e, self.backend))?;
            if let Some(e) = failed.borrow_mut().take() {
                return Err(e.into());
            }
        }
        pool.close().map_err(|e| stage_error(e, self.backend))?;
        if let Some(e) = failed.borrow_mut().take() {
            return Err(e.into());
        }
        // ANCHOR_END: run
        Ok(run_stats(&pool, scenario))
    }
}

/// What an error of a pool on `backend` means for the run: `select(2)`
/// refusing a descriptor ([`fd_set::FdTooHigh`]) is a limit of the backend,
/// not a bug, so the run stops as [`StageError::Unsupported`] with a message
/// that names `FD_SETSIZE` and `--backend` (exit status 1); any other error
/// is the run's I/O error. For every stage built on [`Selector`].
///
/// ```
/// use std::io;
/// use select::{Backend, stage_error};
/// use testbed::stage::StageError;
///
/// let broken = io::Error::from(io::ErrorKind::BrokenPipe);
/// assert!(matches!(stage_error(broken, Backend::Poll), StageError::Io(_)));
/// ```
pub fn stage_error(error: std::io::Error, backend: Backend) -> StageError {
    if fd_set::is_fd_too_high(&error) {
        StageError::Unsupported(format!("--backend {backend}: {error}"))
    } else {
        StageError::Io(error)
    }
}

/// The pool's counters, for the report.
fn run_stats(pool: &SlotPool<'_>, scenario: &Scenario) -> RunStats {
    let stats = pool.stats();
    let mut run = RunStats::new(scenario.conns);
    run.loop_turns(pool.turns().since(scenario.epoch));
    run.figure("backend", pool.backend().as_str());
    run.figure(
        "pool",
        format!(
            "{} connections opened, {} broke",
            stats.connections_opened, stats.connections_broken
        ),
    );
    let per_wait = if stats.waits > 0 {
        stats.events as f64 / stats.waits as f64
    } else {
        0.0
    };
    run.figure(
        "waits",
        format!(
            "{} waits, {per_wait:.1} ready connections per wait",
            stats.waits
        ),
    );
    let elapsed = scenario.epoch.elapsed().as_secs_f64();
    if elapsed > 0.0 {
        let asleep = 100.0 * stats.waiting.as_secs_f64() / elapsed;
        run.figure(
            "loop",
            format!(
                "asleep in wait {asleep:.0}% of the run, working {:.0}%",
                100.0 - asleep
            ),
        );
    }
    run
}
