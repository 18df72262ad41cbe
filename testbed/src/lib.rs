//! The world every stage of async-ladder talks to.
//!
//! Every stage solves one problem: send a long list of items to a slow
//! service and store each outcome in a database that allows few connections.
//! This crate is that world, so that the stages contain only their lesson:
//!
//! - the wire protocol, SLOW/1 ([`protocol`]), and the framing that turns
//!   bytes into lines ([`framing`]), with a blocking connection on top
//!   ([`conn`]); what can go wrong with an item ([`outcome`]);
//! - the simulated slow server ([`server`]), in this process or its own
//!   ([`forked`]), its latency models ([`latency`]) and its deterministic
//!   faults ([`faults`], drawn with [`dice`], and its [`outage`] window),
//!   and the descriptor limit that thousands of connections need
//!   ([`limits`]);
//! - the work ([`workload`]), the results database ([`store`]), the report
//!   that verifies it ([`report`]) and the picture of a run ([`timeline`],
//!   drawn with [`svg`], or as a page to scrub), with the event loop's own
//!   wake-ups ([`turns`]) and an executor's polls and wakes ([`tasks`]);
//! - the stage contract ([`stage`]), the shared command line ([`cli`]), the
//!   harness that runs a stage end to end ([`harness`]), the watchdog that
//!   speaks when a run stalls ([`watchdog`]) and the account of a run cut
//!   short by a signal ([`interrupt`]), and for the stages' tests the
//!   conformance check ([`conformance`]), a way to run their binaries
//!   with a deadline ([`testing`]) and a headless browser for the timeline
//!   page ([`browser`]), and the hint an exercise's failing tests end
//!   with when they fail as a known mistake does ([`hints`]);
//! - whether a measurement had the machine to itself ([`machine`]).
//!
//! # Layout
//!
//! Read `protocol`, `framing` and `conn` first: they are what a stage uses.
//! `server` is the other end of the wire; `store` and `report` are what
//! happens after a run. `harness` ties them together for the binaries.
//!
//! Not here: any way of *being concurrent* as a client. That is what the
//! stages are for.

pub mod browser;
pub mod cli;
pub mod conformance;
pub mod conn;
pub mod dice;
pub mod duration;
pub mod faults;
pub mod forked;
pub mod framing;
pub mod harness;
pub mod hints;
pub mod interrupt;
pub mod latency;
pub mod limits;
pub mod long_poll;
pub mod machine;
pub mod outage;
pub mod outcome;
pub mod progress;
pub mod protocol;
pub mod report;
pub mod sample;
pub mod server;
pub mod stage;
pub mod store;
pub mod svg;
pub mod tasks;
pub mod testing;
pub mod timeline;
pub mod turns;
pub mod watch;
pub mod watchdog;
pub mod workload;
