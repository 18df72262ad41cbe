//! `05-pool`: stage 5 as a program. Arguments (the shared ones, the pool's
//! knobs, the backend), then the harness does the rest (embedded server,
//! results database, report, `--timeline`).

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use pool::{Knobs, TimedPool};
use select::BackendArg;
use testbed::cli::{Settings, parse_or_exit, parse_positive_duration, usage_error};

/// Stage 5 of async-ladder: the timed pool.
#[derive(Debug, Parser)]
#[command(name = "05-pool", version)]
struct Args {
    #[command(flatten)]
    settings: Settings,

    #[command(flatten)]
    selector: BackendArg,

    /// Close a connection idle in the pool this long (beyond --min-idle).
    #[arg(long, value_name = "DURATION", value_parser = parse_positive_duration, allow_hyphen_values = true)]
    idle_timeout: Option<Duration>,

    /// Retire a connection after it carried this many requests.
    #[arg(long, value_name = "N", value_parser = parse_uses, allow_hyphen_values = true)]
    max_uses: Option<u64>,

    /// Keep this many connections open and idle, ready for the next checkout.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_hyphen_values = true
    )]
    min_idle: usize,

    /// Fail a request that waited this long for a connection, with pool_timeout.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "5s",
        value_parser = parse_positive_duration,
        allow_hyphen_values = true
    )]
    checkout_timeout: Duration,

    /// Return a connection to the pool after a NAK or 500 (closed by default).
    #[arg(long)]
    reuse_after_error: bool,
}

fn parse_uses(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number of at least 1".into()),
    }
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    let knobs = Knobs {
        idle_timeout: args.idle_timeout,
        max_uses: args.max_uses,
        min_idle: args.min_idle,
        checkout_timeout: Some(args.checkout_timeout),
        reuse_after_error: args.reuse_after_error,
        seed: args.settings.seed,
        ..Knobs::default()
    };
    if let Err(message) = args.selector.check(&args.settings) {
        return usage_error(&message);
    }
    // The knobs must fit the size: say which flag does not, with status 2.
    if let Err(problem) = knobs.validate(args.settings.conns) {
        return usage_error(&format!("--min-idle/--conns: {problem}"));
    }
    let stage = TimedPool {
        backend: args.selector.backend,
        knobs,
    };
    testbed::harness::main(&stage, &args.settings)
}
