//! Stage 3: round-robin. One process, N connections, one database
//! connection.
//!
//! Stage 2 bought concurrency with processes, and paid for it with one
//! database connection per process. This stage keeps one process and one
//! database connection, and still has N requests in flight: it splits each
//! request into "send" and "later, receive and handle" (the source article's
//! "Asincrono"). A [`Wrapper`] around each connection remembers what to do
//! when its reply comes; a loop visits the wrappers in turn, blocking on
//! each one's reply, handing it the next item when it is free.
//!
//! # Layout
//!
//! Read in this order:
//!
//! - `continuation.rs`: a request as a chain of phases, each a closure that
//!   returns the next ([`Continuation`], [`send_request`]);
//! - `machine.rs`: the same chain as an explicit enum ([`Machine`]), and why
//!   that is what an `async fn` compiles to;
//! - `wrapper.rs`: the source article's wrapper, `start` / `dispose` / `is_working`;
//! - `fleet.rs`: N wrappers and the one database connection, and who owns
//!   that connection ([`Fleet`], [`Wrappers`]);
//! - `loops.rs`: the single-phase loop, the multi-phase loop, the drains;
//! - `model.rs`: the same loops in virtual time, which predict a run and
//!   measure its head-of-line blocking ([`VirtualFleet`]).
//!
//! This file is the stage itself: it builds the wrappers, runs a loop, and
//! reports.
//!
//! Not here: waiting on several connections at once. Every `dispose` blocks
//! on *one* connection, chosen by turn, not by readiness; that is this
//! stage's limit, and stage 4's subject.

#![forbid(unsafe_code)]

pub mod continuation;
pub mod fleet;
pub mod loops;
pub mod machine;
pub mod model;
pub mod wrapper;

use testbed::stage::{RunStats, Scenario, Stage, StageError};

pub use continuation::{Continuation, Step, send_request};
pub use fleet::{Fleet, LoopError, Wrappers};
pub use loops::{Dispatch, Drain};
pub use machine::Machine;
pub use model::{Model, VirtualFleet};
pub use wrapper::{Busy, Chain, Wrapper, WrapperId};

/// The round-robin stage.
///
/// # Examples
///
/// The stage as the binary runs it, on an embedded slow server: five
/// wrappers, one process, one database connection.
///
/// ```
/// use roundrobin::RoundRobin;
/// use testbed::cli::Settings;
/// use testbed::harness::execute;
///
/// let settings = Settings {
///     items: 20,
///     conns: 5,
///     latency: "1ms".parse().expect("a latency"),
///     ..Settings::default()
/// };
/// let report = execute(&RoundRobin::default(), &settings)?.report;
/// assert_eq!((report.ok, report.lost, report.wrong), (20, 0, 0));
/// assert_eq!((report.conns, report.db_connections), (5, 1));
/// # Ok::<(), testbed::harness::HarnessError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct RoundRobin {
    /// Which loop hands out the items; `None` picks the source article's loop for the
    /// request shape (single-phase for `--phases 1`, multi-phase for 2).
    pub dispatch: Option<Dispatch>,
    /// How the last pending requests are finished.
    pub drain: Drain,
    /// How the phases are written: closures or the enum.
    pub chain: Chain,
    /// The server's timing, when known (an embedded server): the run then
    /// also reports what the model predicts for it.
    pub model: Option<Model>,
}

impl Stage for RoundRobin {
    fn name(&self) -> &'static str {
        "roundrobin"
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        // `--conns` is at least 1 on the command line; a hand-made scenario
        // with 0 still gets one wrapper rather than a loop with no turns.
        let conns = scenario.conns.max(1);
        let dispatch = self
            .dispatch
            .unwrap_or(Dispatch::for_phases(scenario.phases));
        // ANCHOR: run
        let store = scenario.open_store()?; // the one database connection
        let (server, read_timeout) = (scenario.server, scenario.read_timeout);
        let connect_timeout = scenario.connect_timeout;
        let connect = move || sync::connect(server, connect_timeout, read_timeout);
        let mut fleet = Wrappers::new(conns, scenario.phases, self.chain, connect, store);
        loops::run(&mut fleet, &scenario.items, dispatch, self.drain).map_err(|e| match e {
            LoopError::Store(e) => StageError::Store(e),
            busy @ LoopError::Busy(_) => StageError::Unsupported(format!(
                "{busy} (the {} loop cannot run {}-phase requests; try --loop multi)",
                dispatch.as_str(),
                scenario.phases.count()
            )),
        })?;
        // ANCHOR_END: run

        let mut stats = RunStats::new(conns.min(scenario.items.len()));
        stats.figure("loop", dispatch.as_str());
        stats.figure("drain", self.drain.as_str());
        stats.figure("chain", self.chain.as_str());
        stats.figure("connections_opened", fleet.connects());
        stats.loop_turns(fleet.turns().since(scenario.epoch));
        if let Some(model) = &self.model {
            // The model runs the same loop; it cannot fail where the run
            // did not (same loop, same replies), so an error is not expected.
            if let Ok(virtual_run) = model.predict(conns, &scenario.items, dispatch, self.drain) {
                let secs = |d: std::time::Duration| (d.as_secs_f64() * 1e3).round() / 1e3;
                stats.figure("model_elapsed_s", secs(virtual_run.clock()));
                stats.figure("model_stalled_s", secs(virtual_run.stalled()));
            }
        }
        Ok(stats)
    }
}
