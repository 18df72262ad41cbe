//! `07-executor`: stage 7 as a program. Arguments, then the harness does
//! the rest.

use std::process::ExitCode;

use clap::Parser;
use executor::Futures;
use testbed::cli::{Settings, parse_or_exit};

/// Stage 7 of async-ladder: a task per item, stage 1's request as an
/// `async fn`, on a one-thread executor.
#[derive(Debug, Parser)]
#[command(name = "07-executor", version)]
struct Args {
    #[command(flatten)]
    settings: Settings,

    /// Reuse a connection whose request the read timeout cancelled: the
    /// bug chapter 8 shows (late replies are read as the next item's).
    #[arg(long, hide = true)]
    reuse_cancelled: bool,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    let stage = Futures {
        reuse_cancelled: args.reuse_cancelled,
        ..Futures::default()
    };
    testbed::harness::main(&stage, &args.settings)
}
