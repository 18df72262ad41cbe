//! `01-sync`: stage 1 as a program. Arguments, then the harness does the rest.

use std::process::ExitCode;

use clap::Parser;
use sync::Blocking;
use testbed::cli::{Settings, parse_or_exit};

/// Stage 1 of async-ladder: one blocking connection, one item at a time.
#[derive(Debug, Parser)]
#[command(name = "01-sync", version)]
struct Args {
    #[command(flatten)]
    settings: Settings,

    /// Open a new connection for every item instead of reusing one.
    #[arg(long)]
    connect_per_request: bool,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    let stage = Blocking {
        connect_per_request: args.connect_per_request,
    };
    testbed::harness::main(&stage, &args.settings)
}
