//! Running an exercise's tests on a mistake: build them in the scratch
//! workspace, run each test binary and then, if they all passed, the doc
//! tests (as a learner's `cargo test -p` does), each with a time limit,
//! and read libtest's output for the tests that failed (or never
//! finished).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::HUNG_AFTER;

/// How long the doc tests may take, their build included. An example is a
/// few lines that finish in milliseconds; one that waits for a wake-up a
/// mistake lost would otherwise cost a full [`HUNG_AFTER`].
const DOC_HUNG_AFTER: Duration = Duration::from_secs(20);

/// Builds `name`'s tests in the scratch workspace and runs them; returns
/// the tests that failed or hung, and the mistakes the binaries' hint
/// lines named. A mistake that does not compile is an error: it would
/// teach nothing about the tests.
pub fn test(root: &Path, scratch: &Path, name: &str) -> Result<(Vec<String>, Vec<String>)> {
    let build = crate::cargo::command()
        .args(["test", "--offline", "--no-run", "--message-format=json"])
        .args(["-p", name])
        .env("CARGO_TARGET_DIR", crate::cargo::target_dir(root)?)
        .current_dir(scratch)
        .stderr(Stdio::piped())
        .output()
        .context("cannot run cargo test --no-run")?;
    if !build.status.success() {
        bail!(
            "the mistake does not compile; a known mistake must build and fail its tests:\n{}",
            String::from_utf8_lossy(&build.stderr)
        );
    }
    let mut caught = Vec::new();
    let mut hinted = Vec::new();
    for line in String::from_utf8_lossy(&build.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let is_test = message["profile"]["test"].as_bool() == Some(true);
        let (Some(exe), Some(target)) = (
            message["executable"].as_str(),
            message["target"]["name"].as_str(),
        ) else {
            continue;
        };
        if is_test || message["target"]["kind"][0] == "test" {
            let exe = Path::new(exe);
            let (failed, named) =
                run_tests(Command::new(exe), target, scratch, HUNG_AFTER, || {
                    list_tests(exe, scratch)
                })?;
            caught.extend(failed);
            hinted.extend(named);
        }
    }
    // The doc tests are tests too: an example in the docs that a mistake
    // breaks is a failure the learner sees. But `cargo test -p` runs them
    // only when every test binary passed (it stops at the first binary
    // that fails), so a mistake the binaries caught never reaches them in
    // a learner's run either, and skipping them spares the check a
    // rustdoc build per mistake.
    if !caught.is_empty() {
        return Ok((caught, hinted));
    }
    let mut doc = crate::cargo::command();
    doc.args(["test", "--offline", "--doc", "-p", name])
        .env("CARGO_TARGET_DIR", crate::cargo::target_dir(root)?);
    let (failed, named) = run_tests(doc, "doc-tests", scratch, DOC_HUNG_AFTER, Vec::new)?;
    caught.extend(failed);
    hinted.extend(named);
    Ok((caught, hinted))
}

/// Runs one test binary (or `cargo test --doc`) with a time limit; the
/// tests it reports failed, or, if it never finished, the ones that had
/// not passed by then (`listed` names them all); and the mistakes its
/// hint lines named (it runs with `LADDER_HINT_NAMES=1`).
fn run_tests(
    command: Command,
    target: &str,
    scratch: &Path,
    hung_after: Duration,
    listed: impl FnOnce() -> Vec<String>,
) -> Result<(Vec<String>, Vec<String>)> {
    let log = scratch.join("test-output.txt");
    let mut command = command;
    command.env("LADDER_HINT_NAMES", "1");
    let status = crate::limited::run(command, scratch, &log, hung_after)?;
    let output = std::fs::read_to_string(&log)?;
    Ok((
        failures(&output, status.map(|s| s.success()), target, listed),
        super::hints::hinted(&output),
    ))
}

/// The failed tests in a test binary's output. `finished` is `None` for a
/// binary killed as hung: then every test that did not report `ok` counts.
fn failures(
    output: &str,
    finished: Option<bool>,
    target: &str,
    listed: impl FnOnce() -> Vec<String>,
) -> Vec<String> {
    let result = |line: &str, verdict: &str| {
        line.strip_prefix("test ")
            .and_then(|rest| rest.strip_suffix(verdict))
            .map(str::to_owned)
    };
    match finished {
        Some(true) => Vec::new(),
        Some(false) => {
            let failed: Vec<String> = output
                .lines()
                .filter_map(|l| result(l, " ... FAILED"))
                .collect();
            let mut failed = failed;
            failed.sort();
            if failed.is_empty() {
                // A test binary without libtest (`harness = false`) stops
                // at its first failed assertion: the binary is the test.
                vec![target.to_owned()]
            } else {
                failed
            }
        }
        None => {
            let passed: BTreeSet<String> = output
                .lines()
                .filter_map(|l| result(l, " ... ok"))
                .collect();
            let mut hung: Vec<String> = listed()
                .into_iter()
                .filter(|t| !passed.contains(t))
                .map(|t| format!("{t} (hung)"))
                .collect();
            if hung.is_empty() {
                hung.push(format!("{target} (hung)"));
            }
            hung
        }
    }
}

/// The tests a libtest binary holds (none for one without libtest).
pub(crate) fn list_tests(exe: &Path, scratch: &Path) -> Vec<String> {
    let Ok(output) = Command::new(exe)
        .args(["--list", "--format", "terse"])
        .current_dir(scratch)
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(": test").map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_and_hung_tests_are_named() {
        let out = "test tests::a ... ok\ntest tests::b ... FAILED\ntest tests::c ... FAILED\n";
        let none = Vec::new;
        assert_eq!(
            failures(out, Some(false), "lib", none),
            ["tests::b", "tests::c"]
        );
        assert!(failures(out, Some(true), "lib", none).is_empty());
        assert_eq!(
            failures("panicked", Some(false), "respawn", none),
            ["respawn"]
        );
        let listed = || vec!["tests::a".to_owned(), "tests::d".to_owned()];
        assert_eq!(failures(out, None, "lib", listed), ["tests::d (hung)"]);
    }
}
