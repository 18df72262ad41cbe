//! `slow-server`: the simulated slow server, standalone.
//!
//! Runs [`testbed::server::SlowServer`] on a fixed address until interrupted,
//! so stages can be pointed at it with `--server ADDR`, or a person can talk
//! to it with `nc 127.0.0.1 7070`. On Ctrl-C (SIGINT) or SIGTERM it stops,
//! prints its statistics on stderr and exits 0.
//!
//! Not here: anything the server does; this file only parses flags and
//! waits for a signal.
//!
//! # Signals without a handler
//!
//! A signal handler runs in the middle of whatever the interrupted thread
//! was doing, where almost nothing is safe to call. Instead, SIGINT and
//! SIGTERM are *blocked* first thing in `main`, before any thread exists;
//! every thread started later inherits the blocked mask, so the signal stays
//! pending until the main thread collects it with `sigwait`, as an ordinary
//! return value. No handler, no race.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Parser;
use nix::sys::signal::{SigSet, Signal};
use testbed::cli::parse_or_exit;

use testbed::faults::FaultPlan;
use testbed::latency::LatencyModel;
use testbed::limits::raise_fd_limit;
use testbed::server::{ServerConfig, SlowServer};

/// The simulated slow server of async-ladder (protocol SLOW/1).
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7070")]
    listen: SocketAddr,
    /// Service time per request line: 10ms, uniform:1ms..20ms, exp:10ms,
    /// bimodal:0.1:100ms:5ms.
    #[arg(long, value_name = "SPEC", default_value = "10ms")]
    latency: LatencyModel,
    /// Faults per request line, e.g. nak=0.05,ko=0.05,hang=0.01, or none.
    #[arg(long, value_name = "SPEC", default_value = "none")]
    faults: FaultPlan,
    /// Seed of every latency and fault draw.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// At most this many connections at once; more get `503 busy`.
    #[arg(long, value_name = "N")]
    max_conns: Option<usize>,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("slow-server: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    // Before any thread exists: see the module docs.
    let mut signals = SigSet::empty();
    signals.add(Signal::SIGINT);
    signals.add(Signal::SIGTERM);
    signals.thread_block()?;

    raise_fd_limit()?;
    let config = ServerConfig {
        latency: args.latency,
        faults: args.faults,
        seed: args.seed,
        max_conns: args.max_conns,
    };
    let server = SlowServer::bind(args.listen, config)?;
    println!(
        "slow-server listening on {} (latency {}, faults {}, seed {})",
        server.addr(),
        config.latency,
        config.faults,
        config.seed
    );

    let signal = signals.wait()?;
    let stats = server.shutdown();
    eprintln!("slow-server stopped by {signal}\n{stats}");
    Ok(())
}
