//! Running the stages: building their binaries, and running one figure's
//! command for its JSON report.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::list::{Run, Source};
use crate::cargo;

/// Builds every stage's binary and example, the testbed's binaries and
/// `runtime-spec` (not the bench's nor xtask's), in release or debug, and
/// returns the folder they are in: `debug/` or `release/` in cargo's
/// target folder `target` (the examples in its `examples/`, which
/// transcripts run).
pub(super) fn build(root: &Path, target: &Path, release: bool) -> Result<PathBuf> {
    let mut build = cargo::command();
    build.args(["build", "--quiet", "--bins", "--examples", "--workspace"]);
    build.args(["--exclude", "bench", "--exclude", "xtask"]);
    build.current_dir(root);
    if release {
        build.arg("--release");
    }
    cargo::run(&mut build)?;
    let profile = if release { "release" } else { "debug" };
    Ok(target.join(profile))
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
    let path = bins.join(bin);
    let mut command = Command::new(&path);
    command.args(args).arg("--json");
    if let Some(path) = timeline {
        command.arg("--timeline").arg(path);
    }
    // The path, not just the name: a binary missing from where xtask looked
    // is a question of where cargo built it.
    let output = command
        .output()
        .with_context(|| format!("cannot run {bin} at {}", path.display()))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::list::parse_cmd;

    #[test]
    fn a_binary_that_cannot_run_is_named_with_its_path() -> Result<()> {
        let bins = std::env::temp_dir().join(format!("xtask-no-bins-{}", std::process::id()));
        let run = parse_cmd("01-sync --items 1")?.remove(0);
        let error = execute(&bins, &run, None).expect_err("there is no such binary");
        let message = format!("{error:#}");
        let path = bins.join("01-sync");
        assert!(message.contains(&path.display().to_string()), "{message}");
        Ok(())
    }
}
