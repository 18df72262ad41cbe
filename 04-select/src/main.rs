//! `04-select`: stage 4 as a program. Arguments, then the harness does the
//! rest (embedded server, results database, report, `--timeline`).

use std::process::ExitCode;

use clap::Parser;
use select::{BackendArg, Select};
use testbed::cli::{Settings, parse_or_exit, usage_error};

/// Stage 4 of async-ladder: one thread waits on every connection at once.
#[derive(Debug, Parser)]
#[command(name = "04-select", version)]
struct Args {
    #[command(flatten)]
    settings: Settings,

    #[command(flatten)]
    selector: BackendArg,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    if let Err(message) = args.selector.check(&args.settings) {
        return usage_error(&message);
    }
    let stage = Select {
        backend: args.selector.backend,
    };
    testbed::harness::main(&stage, &args.settings)
}
