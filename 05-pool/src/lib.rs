//! Stage 5: the timed pool.
//!
//! Stage 4 waits on every connection at once, and trusts the server for
//! everything else: a reply that never comes keeps its item in flight
//! forever, a connection lives as long as the program, an item waits for a
//! connection as long as it takes, and a server that is down fails every
//! item that needed a new connection. The source article ends with "what to
//! add now?": a read timeout, an idle timeout, recycling after some
//! thousands of uses. AnyEvent::Task, a production pool of the same shape,
//! adds the rest: a FIFO queue of checkouts with its own timeout, exclusive
//! checkouts whose calls run in order, a minimum of hot-standby
//! connections, reconnection while the server is down, and no reuse of a
//! connection after an error.
//!
//! All of it rests on one addition to stage 4's loop: a queue of deadlines,
//! so that the wait sleeps until the earliest deadline or until a socket
//! moves, whichever comes first.
//!
//! # Layout
//!
//! Read in this order:
//!
//! - [`timers`]: the deadline queue, with cancellation;
//! - [`backoff`]: exponential backoff with jitter, for reconnects;
//! - [`config`]: the knobs, each with the failure it prevents;
//! - `checkout.rs`: the exclusive [`Checkout`], its id and the
//!   [`FinishedCall`]s it yields;
//! - `pool.rs` and `pool/`: the [`CheckoutPool`] itself, built on stage 4's
//!   [`select::Selector`], [`select::connection::Connection`] and
//!   [`select::slot::Slot`];
//! - [`stats`] and [`journal`]: what the pool counts, and what it did;
//! - this file: the stage, one checkout per item.
//!
//! The files named without a link are private to the crate; what they
//! export is re-exported here.
//!
//! Not here: threads (everything runs on the caller's thread, as in stage
//! 4), and any retry of a failed *request* (a pool retries connects; only
//! the caller knows whether a request is safe to send twice).

#![forbid(unsafe_code)]

pub mod backoff;
mod checkout;
pub mod config;
pub mod journal;
mod pool;
pub mod stats;
pub mod timers;

use select::stage_error;
use testbed::duration::format_duration;
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::store::Lane;

pub use crate::checkout::{Checkout, CheckoutId, FinishedCall};
pub use crate::config::{Config, Knobs};
pub use crate::pool::CheckoutPool;
pub use select::{Backend, Selector};

/// The timed pool stage: `--conns` connections, one checkout per item.
///
/// # Examples
///
/// The stage as the binary runs it, on an embedded slow server, with two
/// connections kept ready:
///
/// ```
/// use pool::{Knobs, TimedPool};
/// use testbed::cli::Settings;
/// use testbed::harness::execute;
///
/// let stage = TimedPool {
///     knobs: Knobs { min_idle: 2, ..Knobs::default() },
///     ..TimedPool::default()
/// };
/// let settings = Settings {
///     items: 20,
///     conns: 4,
///     latency: "1ms".parse().expect("a latency"),
///     ..Settings::default()
/// };
/// let report = execute(&stage, &settings)?.report;
/// assert_eq!((report.ok, report.lost, report.wrong), (20, 0, 0));
/// # Ok::<(), testbed::harness::HarnessError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimedPool {
    /// Which system call waits (`--backend`).
    pub backend: Backend,
    /// Timeouts, recycling, the hot standby, the queue (the stage flags).
    pub knobs: Knobs,
}

impl Stage for TimedPool {
    fn name(&self) -> &'static str {
        "pool"
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        // ANCHOR: run
        let mut store = scenario.open_store()?;
        let config = Config {
            server: scenario.server,
            size: scenario.conns,
            phases: scenario.phases,
            read_timeout: scenario.read_timeout,
            connect_timeout: scenario.connect_timeout,
            knobs: self.knobs,
        };
        let selector = Selector::new(self.backend)?;
        let mut pool =
            CheckoutPool::new(selector, config).map_err(|e| stage_error(e, self.backend))?;
        let mut items = scenario.items.iter().cloned().peekable();
        let mut done = Vec::new();
        while items.peek().is_some() || pool.outstanding() > 0 {
            // The producer: one checkout per item, one call per checkout,
            // and never more than `size` checkouts queued. Enough that a
            // connection that comes free always finds work waiting; few
            // enough that the checkout timeout measures the pool, not the
            // length of the list.
            while pool.waiting() < config.size
                && let Some(item) = items.next()
            {
                let checkout = pool.checkout().map_err(|e| stage_error(e, self.backend))?;
                pool.call(&checkout, item)
                    .map_err(|e| stage_error(e, self.backend))?;
                // `checkout` drops here: the checkout ends after its call.
            }
            pool.turn(&mut done)
                .map_err(|e| stage_error(e, self.backend))?;
            for call in done.drain(..) {
                // The pool stamped the end when it saw it: by now the
                // connection may already carry its next call.
                store.record_span(
                    call.item,
                    lane(call.slot, config.size),
                    call.started,
                    call.finished,
                    &call.outcome,
                )?;
            }
        }
        pool.close(&mut done)
            .map_err(|e| stage_error(e, self.backend))?;
        // ANCHOR_END: run
        debug_assert!(done.is_empty(), "every call was recorded in the loop");
        Ok(run_stats(&pool, scenario))
    }
}

/// The timeline lane of a call: its connection's place, or one lane below
/// the pool's (`size`) for calls that never ran on a connection.
fn lane(slot: Option<select::slot::SlotId>, size: usize) -> Lane {
    Lane::of(slot.map_or(size, |s| s.index()))
}

/// The pool's figures, for the report.
fn run_stats(pool: &CheckoutPool, scenario: &Scenario) -> RunStats {
    let stats = pool.stats();
    let knobs = pool.config().knobs;
    let off = |d: Option<std::time::Duration>| d.map_or("off".to_owned(), format_duration);
    let mut run = RunStats::new(scenario.conns);
    run.loop_turns(pool.turns().since(scenario.epoch));
    run.figure("backend", pool.backend().as_str());
    run.figure("pool", stats.connections_line());
    run.figure("queue", stats.queue_line());
    run.figure(
        "knobs",
        format!(
            "read timeout {}, idle timeout {}, max uses {}, min idle {}, checkout timeout {}{}",
            off(pool.config().read_timeout),
            off(knobs.idle_timeout),
            knobs.max_uses.map_or("off".to_owned(), |n| n.to_string()),
            knobs.min_idle,
            off(knobs.checkout_timeout),
            if knobs.reuse_after_error {
                ", reuse after error"
            } else {
                ""
            }
        ),
    );
    run.figure("loop", stats.loop_line(scenario.epoch.elapsed()));
    if stats.gave_up > 0 {
        // Which of the two it was shows in the counters: a pool that never
        // connected once was not too small, its server was unreachable.
        let why = if stats.opened() == 0 && stats.connect_failures > 0 {
            "the server could not be reached: every connect failed, so checkouts failed at \
             once instead of waiting out the checkout timeout"
        } else {
            "within the checkout timeout, or at once while every connect failed: the pool \
             was too small for the load, or the server could not be reached"
        };
        run.note(format!(
            "{} checkouts got no connection: {why}",
            stats.gave_up
        ));
    }
    if stats.connect_failures > 0 {
        run.note(format!(
            "{} connects failed; the pool backed off and tried again",
            stats.connect_failures
        ));
    }
    run
}
