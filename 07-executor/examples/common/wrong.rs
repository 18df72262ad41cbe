//! What the `wrong_*` examples share: their command line (the stage's own
//! flags, `--fixed`, `--runtime`), and the stage with a bug put in.
//!
//! Each example is one mistake, written as an [`ItemHook`]: code the stage
//! runs in every item's task before its request. The run, the report and
//! the exit status are then the stage's own (`testbed::harness`), so the
//! damage shows where it would in real work.

use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use clap::{Args, ValueEnum};
use executor::{Futures, Hook, ItemHook};
use testbed::cli::Settings;
use testbed::harness::execute;
use testbed::report::Report;

/// The flags every `wrong_*` example takes.
#[derive(Debug, Args)]
pub struct Common {
    /// The stage's flags: --items, --conns, --latency, --timeline, --json...
    #[command(flatten)]
    pub settings: Settings,

    /// Run the fix instead of the bug.
    #[arg(long)]
    pub fixed: bool,

    /// Where to run it: this crate's executor, in the stage, or tokio's
    /// current-thread runtime against a simulated server.
    #[arg(long, value_enum, default_value_t = Runtime::Executor)]
    pub runtime: Runtime,
}

/// The executor an example runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Runtime {
    /// This crate's executor, in the stage (the harness's report).
    Executor,
    /// tokio's current-thread runtime (its own short report).
    Tokio,
}

/// The stage, with `hook` run in each item's task.
#[allow(dead_code)]
pub fn stage(hook: impl ItemHook + 'static) -> Futures {
    Futures {
        hook: Some(Hook::new(hook)),
        ..Futures::default()
    }
}

/// Runs the stage with `hook` as the `07-executor` binary would: the
/// report on stdout, the exit status the run earned.
#[allow(dead_code)]
pub fn run(hook: impl ItemHook + 'static, settings: &Settings) -> ExitCode {
    // A bug that blocks the only thread for good (a lock held across an
    // `.await`) must not hang the example: after a second with nothing
    // recorded, the watchdog says what the thread is blocked in, and ends
    // the run.
    let mut settings = settings.clone();
    if settings.stall_after == testbed::stage::STALL {
        settings.stall_after = Duration::from_secs(1);
    }
    settings.stall_ends = true;
    // When every item's task panics the same way, one message on the
    // terminal says it; the report counts them all.
    let print = std::panic::take_hook();
    let first = std::sync::Once::new();
    std::panic::set_hook(Box::new(move |info| {
        first.call_once(|| {
            print(info);
            eprintln!("(any later panic is counted in the report, not printed)");
        })
    }));
    testbed::harness::main(&stage(hook), &settings)
}

/// Does the report warn of `what` (a piece of one of its lints)?
#[allow(dead_code)]
pub fn warns(report: &Report, what: &str) -> bool {
    report.lints.iter().any(|lint| lint.contains(what))
}

/// Runs an example as its flags say: `hook` in the stage on this crate's
/// executor, or the same mistake (`on_tokio(fixed)`) on tokio's
/// current-thread runtime.
#[allow(dead_code)]
pub fn example(
    common: &Common,
    hook: impl ItemHook + 'static,
    on_tokio: fn(bool) -> super::on_tokio::PerItem,
) -> ExitCode {
    let fixed = common.fixed;
    match common.runtime {
        Runtime::Executor => run(hook, &common.settings),
        Runtime::Tokio => super::on_tokio::run(&common.settings, true, move || on_tokio(fixed)),
    }
}

/// Small settings for the examples' tests: 40 items, 8 at once, 1 ms a
/// line.
#[allow(dead_code)]
pub fn small() -> Settings {
    Settings {
        items: 40,
        conns: 8,
        latency: "1ms".parse().expect("a latency"),
        ..Settings::default()
    }
}

/// How a test's run ended.
#[allow(dead_code)]
#[derive(Debug)]
pub enum Ended {
    /// With a report.
    Report(Box<Report>),
    /// With an error (the run could not finish: stuck, say).
    Error(String),
    /// Not within the limit: the thread is left behind, blocked.
    Running,
}

/// Runs the stage that `make` builds with `settings` on a thread of its
/// own, named `name`, and waits at most `limit` for it.
#[allow(dead_code)]
pub fn run_within(
    name: &str,
    make: impl FnOnce() -> Futures + Send + 'static,
    settings: Settings,
    limit: Duration,
) -> Ended {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let ended = match execute(&make(), &settings) {
                Ok(execution) => Ended::Report(Box::new(execution.report)),
                Err(error) => Ended::Error(error.to_string()),
            };
            // The receiver is gone only if the test gave up.
            let _ = tx.send(ended);
        })
        .expect("a thread starts");
    rx.recv_timeout(limit).unwrap_or(Ended::Running)
}

/// A figure of the stage's, as a number (0 when absent).
#[allow(dead_code)]
pub fn figure(report: &Report, key: &str) -> u64 {
    report
        .stage_stats
        .get(key)
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0)
}

/// Is a thread of this process named `name` asleep in `futex` (a lock)?
/// The kernel says, in `/proc/self/task/TID/syscall`: the number of the
/// system call a thread is blocked in comes first.
#[allow(dead_code)]
pub fn blocked_on_lock(name: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    const FUTEX: &str = "202";
    #[cfg(target_arch = "aarch64")]
    const FUTEX: &str = "98";
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    return true;
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return true; // No /proc: nothing to check against.
    };
    tasks.flatten().any(|task| {
        let read = |file: &str| std::fs::read_to_string(task.path().join(file)).unwrap_or_default();
        read("comm").trim() == name && read("syscall").split(' ').next() == Some(FUTEX)
    })
}
