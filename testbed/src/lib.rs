//! The world every stage of async-ladder talks to.
//!
//! Every stage solves one problem: send a long list of items to a slow
//! service and store each outcome in a database that allows few connections.
//! This crate is that world, so that the stages contain only their lesson:
//!
//! - the wire protocol, SLOW/1 ([`protocol`]), and the framing that turns
//!   bytes into lines ([`framing`]), with a blocking connection on top
//!   ([`conn`]);
//! - the simulated slow server ([`server`]), its latency models
//!   ([`latency`]) and its deterministic faults ([`faults`], [`dice`]);
//!   the same server in a child process ([`forked`]), and the descriptor
//!   limit that thousands of connections need ([`limits`]);
//! - the work ([`workload`]), the results database ([`store`]) and the
//!   report that verifies it ([`report`]);
//! - the stage contract ([`stage`]), the shared command line ([`cli`]) and
//!   the harness that runs a stage end to end ([`harness`]).
//!
//! # Layout
//!
//! Read `protocol`, `framing` and `conn` first: they are what a stage uses.
//! `server` is the other end of the wire; `store` and `report` are what
//! happens after a run. `harness` ties them together for the binaries.
//!
//! Not here: any way of *being concurrent* as a client. That is what the
//! stages are for.

pub mod conn;
pub mod dice;
pub mod duration;
pub mod faults;
pub mod forked;
pub mod framing;
pub mod latency;
pub mod limits;
pub mod outcome;
pub mod progress;
pub mod protocol;
pub mod server;
pub mod store;
pub mod workload;
