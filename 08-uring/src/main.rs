//! `08-uring`: stage 8 as a program. Arguments, then the harness does the
//! rest (a refusal when io_uring is unavailable, embedded server, results
//! database, report, `--timeline`).

use std::process::ExitCode;

use clap::Parser;
use testbed::cli::{Settings, parse_or_exit};
use uring::Uring;

/// Stage 8 of async-ladder: completion-based I/O on one io_uring.
#[derive(Debug, Parser)]
#[command(name = "08-uring", version)]
struct Args {
    #[command(flatten)]
    settings: Settings,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    testbed::harness::main(&Uring, &args.settings)
}
