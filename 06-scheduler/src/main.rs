//! `06-scheduler`: stage 6 as a program. Arguments, then the harness does
//! the rest.

use std::process::ExitCode;

use clap::Parser;
use scheduler::Fibers;
use testbed::cli::{Settings, parse_or_exit};

/// Stage 6 of async-ladder: a fiber per item, running stage 1's request.
#[derive(Debug, Parser)]
#[command(name = "06-scheduler", version)]
struct Args {
    #[command(flatten)]
    settings: Settings,

    /// Stack of each fiber, in KiB (reserved address space; only the pages
    /// a fiber touches cost memory). Too small crashes with SIGSEGV.
    #[arg(
        long,
        default_value_t = 64,
        value_parser = clap::value_parser!(u32).range(16..=8192),
        allow_hyphen_values = true
    )]
    stack_kib: u32,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    let stage = Fibers::with_stack_size(args.stack_kib as usize * 1024);
    testbed::harness::main(&stage, &args.settings)
}
