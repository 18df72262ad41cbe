//! One behaviour suite for every runtime on the ladder, with tokio as the
//! reference.
//!
//! A *scenario* is a short script of steps (spawn, sleep, read, write,
//! yield, join, abort, wake from a thread, log...) and the trace it must
//! record: events in order, with lower bounds on time where time matters,
//! and groups that may come in any order where a runtime may order them
//! either way. Each runtime has an *interpreter* that runs the steps with
//! its own primitives: on futures a step is an `.await`
//! (`futures_rt.rs`, with the adapters `rt_tokio.rs` and
//! `rt_executor.rs`), on 06's fibers a blocking call (`rt_fibers.rs`).
//!
//! A learner's own runtime (chapter 8's capstone) is graded by the same
//! scenarios, stage by stage: see [`grade`].
//!
//! Read in this order: `script.rs` (the steps), `trace.rs` (expectations
//! and the comparison), `scenarios/` (the behaviours, by group),
//! `runner.rs` (one run, bounded in time), then an interpreter; `table.rs`
//! and `markdown.rs` print the results, `cli.rs` reads the command line.
//!
//! 07's executor also runs under seeds (`Executor07 { seed }`): each batch
//! of woken tasks in an order drawn from the seed, so that an expectation
//! that holds only in the order tasks were woken is found, and
//! `runtime-spec --runtime 07-executor --seed N SCENARIO` replays it.
//!
//! Where a runtime cannot express a scenario (a fiber cannot be cancelled
//! from outside), the scenario says so for that runtime, with the reason:
//! the table prints "differs" and the reason, never a silent skip.

pub mod cli;
mod futures_rt;
pub mod grade;
mod io_pair;
pub mod markdown;
mod rt_executor;
mod rt_fibers;
mod rt_tokio;
mod runner;
mod scenarios;
mod script;
mod table;
mod trace;

pub use futures_rt::{AsyncRt, Ctx, run_task, yield_once};
pub use io_pair::{Peer, describe, pair};
pub use rt_executor::{EXECUTOR, Executor07, ExecutorRt};
pub use rt_fibers::{FIBERS, Fibers06};
pub use rt_tokio::{TOKIO_CT, TOKIO_MT, Tokio, TokioRt};
pub use runner::{RUN_LIMIT, Runtime, Verdict, run, verdict};
pub use scenarios::all;
pub use script::{RuntimeName, Scenario, Step};
pub use table::{quiet_scenario_panics, runtimes, table};
pub use trace::{
    Expect, ExpectedEvent, Recorder, Trace, any_order, at_least, check, ev, expected_events,
    one_thread_order, side_by_side,
};
