//! One run of one contender: its verified report and the client's CPU time.
//!
//! Every run goes through `testbed::harness::execute`, like a stage binary's:
//! the same database, the same verification, the same report. The stage is
//! wrapped in [`Metered`] so the client's CPU time of its `run` is counted,
//! and pointed at a slow server in another process (`settings.server`), so
//! that CPU time is the client's alone.
//!
//! A contender that forks (02-fork) cannot run inside the race or the
//! benches: by then they have threads, and forking a multi-threaded process
//! is exactly the hazard 02-fork's chapter warns about. [`Runner`] runs it
//! in a fresh, single-threaded process instead: the `race` binary's hidden
//! `contender` subcommand, which calls [`run_here`] and prints the [`Lap`]
//! as one line of JSON. There, its worker processes' CPU time arrives
//! through `RUSAGE_CHILDREN` once they have been waited for, inside the
//! measured `run`.
//!
//! Not here: which contenders exist ([`crate::contenders`]), where the
//! servers come from ([`crate::servers`]).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};
use testbed::cli::Settings;
use testbed::duration::format_duration;
use testbed::harness::{HarnessError, execute};
use testbed::report::Report;

use crate::contenders::Contender;
use crate::cpu::{CpuTime, Metered};

/// The subcommand of the `race` binary that runs one contender in its own
/// process.
pub const CONTENDER_SUBCOMMAND: &str = "contender";

/// One run's report, as a stage binary's `--json` prints it, plus the
/// client's CPU time.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Lap {
    /// The verified report; `stage` is the contender's name.
    #[serde(flatten)]
    pub report: Report,
    /// The client's CPU time (user + system) during the stage's `run`, s.
    pub client_cpu_s: f64,
    /// Of which in user mode, s.
    pub client_cpu_user_s: f64,
    /// Of which in the kernel, s.
    pub client_cpu_sys_s: f64,
    /// `client_cpu_s` per item, µs.
    pub client_cpu_us_per_item: f64,
    /// System calls per item, counted by the kernel in a lap of its own
    /// ([`crate::syscalls`]); `null` when no tool could count them.
    #[serde(default)]
    pub syscalls_per_item: Option<f64>,
}

impl Lap {
    fn new(report: Report, cpu: CpuTime) -> Lap {
        let total = cpu.total().as_secs_f64();
        let per_item = if report.items > 0 {
            total * 1e6 / report.items as f64
        } else {
            0.0
        };
        Lap {
            client_cpu_s: total,
            client_cpu_user_s: cpu.user.as_secs_f64(),
            client_cpu_sys_s: cpu.sys.as_secs_f64(),
            client_cpu_us_per_item: per_item,
            syscalls_per_item: None,
            report,
        }
    }
}

/// Why a run produced no lap.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The harness refused the settings or the stage could not finish.
    #[error(transparent)]
    Harness(#[from] HarnessError),
    /// The contender's own process failed.
    #[error("{0}")]
    Child(String),
    /// The timeline could not be written.
    #[error("timeline: {0}")]
    Timeline(std::io::Error),
}

/// Runs contenders, each in this process unless it forks.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The `race` binary, whose `contender` subcommand runs a forking
    /// contender in a process of its own.
    pub race_exe: PathBuf,
}

impl Runner {
    /// Runs `contender` once with `settings` (whose `server` must be set),
    /// writing its timeline to `timeline` if given, with `caption` under it.
    pub fn run(
        &self,
        contender: &Contender,
        settings: &Settings,
        timeline: Option<&Path>,
        caption: Option<&str>,
    ) -> Result<Lap, RunError> {
        if !(contender.make)().forks() {
            return run_here(contender, settings, timeline, caption);
        }
        // It forks: run it in a fresh, single-threaded process of its own.
        let mut command = Command::new(&self.race_exe);
        command
            .arg(CONTENDER_SUBCOMMAND)
            .arg(contender.name)
            .args(settings_args(settings));
        if let Some(path) = timeline {
            command.arg("--timeline").arg(path);
        }
        if let Some(caption) = caption {
            command.arg("--caption").arg(caption);
        }
        // A process group of its own: Ctrl-C at the terminal goes to the
        // race's group, and must not cut this lap short (its workers would
        // die and its items count as lost). The race hears the signal,
        // lets this lap finish, and stops after it.
        command.process_group(0);
        // The child's stderr is ours: its errors reach the user directly.
        let output = command
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| {
                RunError::Child(format!("cannot start {}: {e}", self.race_exe.display()))
            })?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        serde_json::from_str(stdout.trim()).map_err(|e| {
            RunError::Child(format!(
                "{} in its own process ended with {} and no lap ({e}): {stdout}",
                contender.name, output.status
            ))
        })
    }
}

/// Runs `contender` in this process: the `contender` subcommand's body, and
/// the path of every contender that does not fork.
pub fn run_here(
    contender: &Contender,
    settings: &Settings,
    timeline: Option<&Path>,
    caption: Option<&str>,
) -> Result<Lap, RunError> {
    let stage = (contender.make)();
    let metered = Metered::new(stage.as_ref());
    let mut execution = execute(&metered, settings)?;
    execution.report.stage = contender.name.to_owned();
    if let Some(path) = timeline {
        execution
            .write_timeline(path, caption)
            .map_err(RunError::Timeline)?;
    }
    // The harness only returns a report after `run` returned Ok, and
    // `Metered` records the time exactly then.
    let cpu = metered.spent().unwrap_or_default();
    Ok(Lap::new(execution.report, cpu))
}

/// The shared flags that reproduce `settings` (all but `--db`, `--json`
/// and `--timeline`, which the runner chooses).
pub fn settings_args(settings: &Settings) -> Vec<String> {
    let mut args = vec![
        "--items".to_owned(),
        settings.items.to_string(),
        "--conns".to_owned(),
        settings.conns.to_string(),
        "--phases".to_owned(),
        settings.phases.count().to_string(),
        "--latency".to_owned(),
        settings.latency.to_string(),
        "--faults".to_owned(),
        settings.faults.to_string(),
        "--seed".to_owned(),
        settings.seed.to_string(),
    ];
    if let Some(addr) = settings.server {
        args.extend(["--server".to_owned(), addr.to_string()]);
    }
    if let Some(timeout) = settings.read_timeout {
        args.extend(["--read-timeout".to_owned(), format_duration(timeout)]);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        settings: Settings,
    }

    #[test]
    fn settings_survive_the_trip_through_arguments() {
        let settings = Settings {
            items: 123,
            conns: 7,
            phases: testbed::protocol::Phases::One,
            latency: "bimodal:0.1:20ms:1ms".parse().expect("a valid spec"),
            faults: "nak=0.1,drop=0.05".parse().expect("a valid spec"),
            seed: 9,
            server: Some("127.0.0.1:7070".parse().expect("an address")),
            read_timeout: Some(std::time::Duration::from_millis(150)),
            ..Settings::default()
        };
        let args = settings_args(&settings);
        let parsed = Cli::try_parse_from(std::iter::once("x".to_owned()).chain(args))
            .expect("the arguments parse")
            .settings;
        assert_eq!(
            format!("{parsed:?}"),
            format!("{settings:?}"),
            "the same settings"
        );
    }
}
