//! `02-fork`: stage 2 as a program. Arguments, then the harness does the rest.

use std::process::ExitCode;

use clap::Parser;
use fork::{CrashPlan, Forked, Workers};
use testbed::cli::{Settings, parse_or_exit, usage_error};

/// Stage 2 of async-ladder: deal the items round-robin to --conns worker
/// processes, each with its own connection and its own database connection.
#[derive(Debug, Parser)]
#[command(name = "02-fork", version)]
struct Args {
    #[command(flatten)]
    settings: Settings,

    /// Run the workers as threads of a rayon pool instead of forked processes.
    #[arg(long)]
    threads: bool,

    /// For teaching and testing: worker K (0 to --conns - 1) kills itself
    /// with SIGKILL after recording N outcomes (K:N, N at least 1, e.g.
    /// 2:10). The rest of its partition is reported as lost, and the run
    /// exits 1. Processes only.
    #[arg(
        long,
        value_name = "K:N",
        conflicts_with = "threads",
        allow_hyphen_values = true
    )]
    crash_worker: Option<CrashPlan>,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    // The workers forked: one per item at most (see `Forked::run`).
    let workers = args.settings.conns.min(args.settings.items);
    if let Some(plan) = args.crash_worker {
        if plan.worker.index() >= workers {
            return usage_error(&format!(
                "--crash-worker {plan}: this run forks {workers} worker processes (the smaller \
                 of --conns and --items), numbered from 0"
            ));
        }
        // Round-robin: worker K gets every workers-th item from the K-th.
        // A plan to die after more outcomes than it has items would never
        // fire, and the run would teach nothing, silently.
        let share = args.settings.items / workers
            + usize::from(plan.worker.index() < args.settings.items % workers);
        if plan.after > share {
            return usage_error(&format!(
                "--crash-worker {plan}: worker {} has only {share} items in this run (--items \
                 dealt round-robin to {workers} workers), so it would never die; use N from 1 \
                 to {share}",
                plan.worker.index()
            ));
        }
    }
    let workers = if args.threads {
        Workers::Threads
    } else {
        Workers::Processes {
            crash: args.crash_worker,
        }
    };
    testbed::harness::main(&Forked { workers }, &args.settings)
}
