//! `slow-server`: the simulated slow server, standalone.
//!
//! Runs [`testbed::server::SlowServer`] on a fixed address until interrupted,
//! so stages can be pointed at it with `--server ADDR`, or a person can talk
//! to it with `nc 127.0.0.1 7070`. On Ctrl-C (SIGINT) or SIGTERM it stops,
//! prints its statistics on stderr and exits 0.
//!
//! Unlike the embedded server of a run, it closes connections that stay
//! idle (`--idle-timeout`, a minute by default): a long-running server
//! that keeps every forgotten socket runs out of descriptors, and then
//! starves the clients that do talk to it.
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
use std::time::Duration;

use clap::Parser;
use nix::sys::signal::{SigSet, Signal};
use testbed::cli::{Printed, parse_or_exit, print_or_report, usage_error};

use testbed::duration::{DURATION_FORMS, format_duration, parse_duration};
use testbed::faults::FaultPlan;
use testbed::latency::LatencyModel;
use testbed::limits::raise_fd_limit;
use testbed::outage::Outage;
use testbed::server::{ServerConfig, SlowServer};

/// The simulated slow server of async-ladder (protocol SLOW/1).
#[derive(Debug, Parser)]
#[command(name = "slow-server", version)]
struct Args {
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7070")]
    listen: SocketAddr,
    /// Service time per request line: 10ms, uniform:1ms..20ms, exp:10ms,
    /// bimodal:0.1:100ms:5ms, pareto:2ms:1.5.
    #[arg(
        long,
        value_name = "SPEC",
        default_value = "10ms",
        allow_hyphen_values = true
    )]
    latency: LatencyModel,
    /// Faults per request line, e.g. nak=0.05,ko=0.05,hang=0.01,reset=0.01,
    /// blackhole=0.01, or none.
    #[arg(
        long,
        value_name = "SPEC",
        default_value = "none",
        allow_hyphen_values = true
    )]
    faults: FaultPlan,
    /// Be down from START to START+LENGTH after starting (e.g. 200ms+300ms):
    /// refuse connections and reset the open ones, then serve again.
    #[arg(long, value_name = "START+LENGTH", allow_hyphen_values = true)]
    outage: Option<Outage>,
    /// Seed of every latency and fault draw.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        allow_hyphen_values = true
    )]
    seed: u64,
    /// At most this many connections at once; more get `503 busy`.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_conns: Option<usize>,
    /// Close a connection that sends no request line for this long (0: never).
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "60s",
        value_parser = parse_idle,
        allow_hyphen_values = true
    )]
    idle_timeout: Duration,
}

/// `--idle-timeout`: a duration, where 0 turns the timeout off.
fn parse_idle(s: &str) -> Result<Duration, String> {
    parse_duration(s).ok_or_else(|| format!("expected {DURATION_FORMS}, or 0 for none"))
}

/// Why the server cannot listen on `addr`, in one line that names it.
fn cannot_listen(addr: SocketAddr, e: &std::io::Error) -> String {
    let hint = match e.kind() {
        std::io::ErrorKind::AddrInUse => {
            "another program listens there; give another port, or port 0 for any free one"
        }
        std::io::ErrorKind::PermissionDenied => {
            "ports under 1024 need privileges; give a higher port, or port 0 for any free one"
        }
        std::io::ErrorKind::AddrNotAvailable => {
            "no interface of this machine has that address; try 127.0.0.1"
        }
        _ => "give another address, e.g. --listen 127.0.0.1:0",
    };
    format!("--listen {addr}: cannot listen there ({e}): {hint}")
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    match run(args) {
        Ok(status) => status,
        Err(e) => {
            eprintln!("slow-server: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    // Before any thread exists: see the module docs.
    let mut signals = SigSet::empty();
    signals.add(Signal::SIGINT);
    signals.add(Signal::SIGTERM);
    signals.thread_block()?;

    raise_fd_limit()?;
    let config = ServerConfig {
        latency: args.latency,
        faults: args.faults.with_outage(args.outage),
        seed: args.seed,
        max_conns: args.max_conns,
    };
    let bound = if args.idle_timeout.is_zero() {
        SlowServer::bind(args.listen, config)
    } else {
        SlowServer::bind_with_idle_timeout(args.listen, config, args.idle_timeout)
    };
    let server = match bound {
        Ok(server) => server,
        // The address is the user's choice: name it, and the way out.
        Err(e) => return Ok(usage_error(&cannot_listen(args.listen, &e))),
    };
    let outage = args
        .outage
        .map(|outage| format!(", outage {outage}"))
        .unwrap_or_default();
    let idle = if args.idle_timeout.is_zero() {
        "none".to_owned()
    } else {
        format_duration(args.idle_timeout)
    };
    let banner = format!(
        "slow-server listening on {} (latency {}, faults {}{outage}, seed {}, idle timeout {idle})\n",
        server.addr(),
        config.latency,
        config.faults,
        config.seed
    );
    // Whoever started the server reads its address here. With nobody
    // reading (the pipe closed), end as `cat` would: quietly, serving no
    // one. A full disk is an error worth a line and status 1.
    match print_or_report(&banner) {
        Ok(Printed::Written) => {}
        Ok(Printed::ReaderGone) => return Ok(ExitCode::SUCCESS),
        Err(status) => return Ok(status),
    }

    let signal = signals.wait()?;
    let stats = server.shutdown();
    eprintln!("slow-server stopped by {signal}\n{stats}");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::server::DEFAULT_IDLE_TIMEOUT;

    #[test]
    fn the_default_idle_timeout_is_the_library_one() {
        let args = Args::try_parse_from(["slow-server"]).expect("the defaults parse");
        assert_eq!(args.idle_timeout, DEFAULT_IDLE_TIMEOUT);
        let args = Args::try_parse_from(["slow-server", "--idle-timeout", "0"]).expect("0 parses");
        assert!(args.idle_timeout.is_zero());
    }

    #[test]
    fn negative_values_name_their_flag() {
        for (flag, value) in [
            ("--max-conns", "-1"),
            ("--idle-timeout", "-5ms"),
            ("--seed", "-2"),
        ] {
            let error = Args::try_parse_from(["slow-server", flag, value])
                .expect_err("a negative value is refused")
                .to_string();
            assert!(error.contains(flag), "{flag}: {error}");
        }
    }
}
