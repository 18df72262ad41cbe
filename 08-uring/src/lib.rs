//! Stage 8: completion-based I/O, one thread and one `io_uring`.
//!
//! Every rung from 4 to 7 waits for *readiness*: the kernel says a socket
//! can be read, then the program reads it. Each item costs its `write`,
//! its `read` and its share of `epoll_wait`, each a system call, and the
//! best of those loops all sit at the same floor. This rung asks the kernel
//! to do the I/O itself and to say when it is *complete*: the program
//! queues "connect", "send this", "receive into that buffer" as entries in
//! a ring shared with the kernel, enters the kernel once per turn to submit
//! them all and wait, and finds the bytes already read when it wakes.
//!
//! Three lessons come with that, each in its own file:
//!
//! - **Who owns the buffer.** Between submission and completion the kernel
//!   writes into the program's memory, whatever the program does meanwhile.
//!   So operations take their buffers by value and completions give them
//!   back ([`ring`]), and a connection knows at each moment whether its
//!   buffers are its own or lent (`lane.rs`).
//! - **Timeouts and cancellation are requests too.** A read timeout is a
//!   linked timeout entry, which the kernel fires by cancelling the read;
//!   giving up on a connection means asking the kernel to cancel what is in
//!   flight, and waiting for those operations to complete before the socket
//!   is closed and the buffers reused.
//! - **It may not be there.** Many containers forbid io_uring; [`setup`]
//!   says why, how to check, and what to run instead, before the run starts.
//!
//! # Layout
//!
//! Read in this order: [`setup`] (making the ring), [`ring`] (operations,
//! owned memory, linked timeouts, cancel, the batched submit), `lane.rs`
//! (one connection and its item, on 04-select's [`Exchange`]), `driver.rs`
//! (the loop), then this file (the stage).
//!
//! [`Exchange`]: select::exchange::Exchange

#![deny(unsafe_code)]

mod driver;
mod lane;
#[allow(unsafe_code)] // The lesson is the ring: the kernel holds our buffers.
pub mod ring;
pub mod setup;

use testbed::stage::{RunStats, Scenario, Stage, StageError};

pub use crate::driver::DriverStats;
pub use crate::lane::{Finished, LaneConfig};

/// The completion stage: `--conns` connections on one ring.
///
/// # Example
///
/// The stage as the binary runs it, on an embedded slow server:
///
/// ```
/// use testbed::cli::Settings;
/// use testbed::harness::execute;
/// use uring::Uring;
///
/// let settings = Settings {
///     items: 20,
///     conns: 4,
///     latency: "1ms".parse().expect("a latency"),
///     ..Settings::default()
/// };
/// let report = execute(&Uring, &settings)?.report;
/// assert_eq!((report.ok, report.lost, report.wrong), (20, 0, 0));
/// assert!(report.stage_stats["ring"].is_string());
/// # Ok::<(), testbed::harness::HarnessError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Uring;

impl Stage for Uring {
    fn name(&self) -> &'static str {
        "uring"
    }

    /// No io_uring, no run: refused before anything starts, with the cause
    /// and what to run instead.
    fn available(&self) -> Result<(), String> {
        setup::probe().map_err(|why| why.to_string())
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        // ANCHOR: run
        let lanes = u32::try_from(scenario.conns).unwrap_or(u32::MAX);
        let ring = setup::open(lanes).map_err(|why| StageError::Unsupported(why.to_string()))?;
        // ANCHOR_END: run
        run_on(ring, scenario)
    }
}

/// Runs `scenario` on a ring made by the caller: the stage's run, with
/// the ring's sizes and options chosen elsewhere (a test that shrinks the
/// completion queue until it overflows, a measurement of one option).
///
/// ```
/// use testbed::cli::Settings;
/// use testbed::harness::execute;
/// use testbed::stage::{RunStats, Scenario, Stage, StageError};
/// use uring::ring::RingOptions;
///
/// /// The stage on a ring without cooperative task running.
/// struct Interrupting;
///
/// impl Stage for Interrupting {
///     fn name(&self) -> &'static str {
///         "uring"
///     }
///
///     fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
///         let ring = RingOptions::new(64).coop_taskrun(false).build()?;
///         uring::run_on(ring, scenario)
///     }
/// }
///
/// let settings = Settings { items: 10, latency: "1ms".parse().expect("a latency"), ..Settings::default() };
/// let report = execute(&Interrupting, &settings)?.report;
/// assert_eq!((report.ok, report.lost), (10, 0));
/// # Ok::<(), testbed::harness::HarnessError>(())
/// ```
pub fn run_on(ring: ring::Ring, scenario: &Scenario) -> Result<RunStats, StageError> {
    let mut store = scenario.open_store()?;
    let stats = driver::run(ring, scenario, &mut store)?;
    Ok(run_stats(&stats, scenario))
}

/// The ring's counters, for the report.
fn run_stats(stats: &DriverStats, scenario: &Scenario) -> RunStats {
    let ring = stats.ring;
    let items = scenario.items.len().max(1) as f64;
    let mut run = RunStats::new(scenario.conns);
    run.loop_turns(stats.log.since(scenario.epoch));
    run.figure(
        "ring",
        format!(
            "{} enters ({:.2} per item), {:.1} entries per submit",
            ring.enters,
            ring.enters as f64 / items,
            ring.submitted as f64 / stats.turns.max(1) as f64
        ),
    );
    run.figure(
        "cancels",
        format!(
            "{} linked timeouts fired, {} cancel requests",
            ring.timeouts_fired, ring.cancels
        ),
    );
    // Times a completion found the completion queue full and the kernel
    // kept it aside: none, when the queue is sized for every lane.
    run.figure("overflows", ring.overflows);
    run.figure("connects", stats.connects);
    run.figure(
        "enters_per_item",
        (ring.enters as f64 / items * 1000.0).round() / 1000.0,
    );
    run
}
