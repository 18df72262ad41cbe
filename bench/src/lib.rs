//! Racing the stages: every rung of the ladder side by side, and against
//! what a user would reach for instead.
//!
//! Two programs, one registry:
//!
//! - `cargo run --release -p bench --bin race` ([`race`]): every contender
//!   on one latency-bound workload and one zero-latency workload, in one
//!   run: a table, a chart ([`chart`]), each contender's timeline, and
//!   `--json` rows carrying the stage report's keys plus the client's CPU
//!   time. `--quick` runs three rounds of everything, on half the items (65 s
//!   on an idle two-core machine, 2 minutes on a busy one).
//! - `cargo bench -p bench` (`benches/ladder.rs`): criterion, one group per
//!   question: `latency_bound`, `uneven`, `overhead` (wall time) and
//!   `overhead_cpu` (the client's CPU time), `scale`. HTML report in
//!   `target/criterion/report/index.html`.
//!
//! # Short mode
//!
//! `BENCH_SHORT=1 cargo bench -p bench` runs every benchmark on a small
//! workload (a tenth of the items, `scale` at 1,000 connections only) with
//! criterion's minimum of 10 samples and short warm-up and measurement
//! times: a quick look (50 s here with every stage, once built) rather than
//! a measurement. The full run takes about 9 minutes. Without `--bench` on its command line (that is,
//! under `cargo test --benches`), the bench binary uses the short sizes and
//! criterion runs each benchmark once, as a test.
//!
//! # Contenders
//!
//! The rungs are the workspace's stage crates, unchanged. The references
//! are written here, plainly, as a competent user would:
//!
//! - [`threads`]: one OS thread per connection with blocking I/O (01-sync's
//!   request), items from a crossbeam channel, one database connection;
//! - [`tasks`]: one tokio task per connection, on the default multi-thread
//!   runtime (`tokio`) or the current-thread one (`tokio-ct`).
//!
//! They implement `testbed::stage::Stage` like any stage, so the harness
//! runs them and its report verifies them exactly as it verifies a rung.
//! [`contenders`] lists them all; adding a rung is one line there (and its
//! package in `Cargo.toml`).
//!
//! # What is measured, and where
//!
//! Every run goes through `testbed::harness::execute` against a slow server
//! in a process of its own ([`servers`]), so the client's CPU time
//! (`getrusage`, [`cpu`]) is the client's alone; a contender that forks
//! runs in a fresh process ([`run`]). The system calls per item are
//! counted by the kernel, in one more lap of each ([`syscalls`]).
//!
//! Not here: any stage's mechanism. Read the stage crates for that.

#![forbid(unsafe_code)]

pub mod chart;
pub mod contenders;
pub mod cpu;
pub mod floor;
pub mod lineup;
pub mod race;
pub mod racing;
pub mod run;
pub mod servers;
pub mod syscalls;
pub mod table;
pub mod tasks;
pub mod threads;
