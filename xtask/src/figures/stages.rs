//! Running the stages: building their binaries, and running one figure's
//! command for its JSON report.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::list::{Run, Source};
use crate::run as run_command;

/// Builds every stage's binary and the testbed's (not the bench's nor
/// xtask's), in release or debug, and returns the folder they are in.
pub(super) fn build(root: &Path, release: bool) -> Result<PathBuf> {
    let mut build = Command::new("cargo");
    build.args(["build", "--quiet", "--bins", "--workspace"]);
    build.args(["--exclude", "bench", "--exclude", "xtask"]);
    build.current_dir(root);
    if release {
        build.arg("--release");
    }
    run_command(&mut build)?;
    let profile = if release { "release" } else { "debug" };
    Ok(root.join("target").join(profile))
}

/// Runs one figure's command with `--json` (and `--timeline json`), and
/// returns its report. A run that lost items exits with 1 and still prints
/// its report, which is what a figure of a crash shows.
pub(super) fn execute(
    bins: &Path,
    run: &Run,
    timeline: Option<&Path>,
) -> Result<serde_json::Value> {
    let Source::Command { bin, args } = &run.source else {
        bail!("a reused run is not executed");
    };
    let mut command = Command::new(bins.join(bin));
    command.args(args).arg("--json");
    if let Some(path) = timeline {
        command.arg("--timeline").arg(path);
    }
    let output = command
        .output()
        .with_context(|| format!("cannot run {bin}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim()).with_context(|| {
        format!(
            "{bin} {} printed no JSON report ({}):\n{stdout}{}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// A run's label: the `.cmd`'s, else the stage's name.
pub(super) fn label(run: &Run, report: &serde_json::Value) -> String {
    run.label
        .clone()
        .unwrap_or_else(|| report["stage"].as_str().unwrap_or("run").to_owned())
}
