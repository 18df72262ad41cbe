//! Running one student's exercise: each of its test binaries in a process
//! group of its own, the exercise's whole run under one time limit, and
//! libtest's output read into one verdict per test (`verdicts`).
//!
//! The limit is the exercise's, not each binary's: a student's `loop {}`
//! or a wake-up that never comes costs the class's run at most `--limit`,
//! after which the group is killed and every test that had not reported
//! counts as hung. The binaries run with `LADDER_HINT_NAMES=1`, which makes
//! an exercise's tests, when they fail as a known mistake does, print
//! `hint: [<mistake>] <question>` on stderr: the mistake's name is what the
//! class's table shows.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::build::Binary;
pub use super::verdicts::{Status, TestResult};
use super::verdicts::{ended_by, hung, read_libtest, read_plain};
use crate::limited::{Bounds, run_bounded};
use crate::mistakes::hints::hinted;

/// One exercise's run.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Every test, in the order of the binaries and of their listings.
    pub tests: Vec<TestResult>,
    /// The known mistakes the tests recognised, in the order printed.
    pub hints: Vec<String>,
    /// Whether the limit stopped it.
    pub timed_out: bool,
    /// How long it took.
    pub took: Duration,
}

/// The doc tests of a package of the scratch workspace: the examples in
/// the exercise's docs, which a learner's `cargo test` runs too (and which
/// a hand-out turns into tests).
#[derive(Debug, Clone)]
pub struct DocTests {
    /// The package.
    pub package: String,
    /// The scratch workspace's folder.
    pub workspace: PathBuf,
    /// The folder cargo builds into.
    pub target_dir: PathBuf,
}

impl Run {
    /// Replaces the folder `from/` with `to/` in every test's name, message
    /// and output.
    pub fn rename_folder(&mut self, from: &str, to: &str) {
        let (from, to) = (format!("{from}/"), format!("{to}/"));
        for test in &mut self.tests {
            for text in [
                Some(&mut test.name),
                test.message.as_mut(),
                test.output.as_mut(),
            ]
            .into_iter()
            .flatten()
            {
                *text = text.replace(&from, &to);
            }
        }
    }
}

/// Runs `binaries` one after the other and then, if every test passed,
/// `doc`'s doc tests, as `cargo test` does; all within `limit`, logs in
/// `logs`.
pub fn run(
    binaries: &[Binary],
    doc: Option<&DocTests>,
    logs: &Path,
    limit: Duration,
) -> Result<Run> {
    let started = Instant::now();
    let mut run = Run::default();
    std::fs::create_dir_all(logs)?;
    let mut listed_any = false;
    for binary in binaries {
        let left = limit.saturating_sub(started.elapsed());
        let listed = match binary.libtest {
            true => match listing(binary, logs, left)? {
                Some(listed) => listed,
                None => vec![binary.target.clone()],
            },
            false => vec![binary.target.clone()],
        };
        listed_any |= binary.libtest && !listed.is_empty();
        let left = limit.saturating_sub(started.elapsed());
        let status = if left.is_zero() {
            None
        } else {
            let mut command = Command::new(&binary.exe);
            command.env("LADDER_HINT_NAMES", "1");
            let log = logs.join(format!("{}.log", binary.target));
            let bounds = Bounds::STUDENT;
            let status = run_bounded(command, logs, &log, left, Some(bounds))?;
            let output = std::fs::read_to_string(&log).unwrap_or_default();
            run.hints.extend(hinted(&output));
            let finished = status.map(|s| s.success());
            let mut tests = match binary.libtest {
                true => read_libtest(&output, &listed, finished.is_some()),
                false => vec![read_plain(&binary.target, &output, finished)],
            };
            if let Some(why) = status.and_then(|s| bounds.passed(s, &output)) {
                ended_by(&mut tests, &why);
            }
            run.tests.extend(tests);
            status
        };
        if status.is_none() {
            run.timed_out = true;
            if left.is_zero() {
                run.tests.extend(listed.into_iter().map(hung));
            }
        }
    }
    // Every exercise has tests: if its binaries list none (and it has no
    // binary of its own harness, which is one test), they were made to
    // (a student's code that runs before `main` can end the listing).
    let plain = binaries.iter().any(|b| !b.libtest);
    if !listed_any && !plain && !binaries.is_empty() && !run.timed_out {
        run.tests.push(TestResult {
            name: "tests".into(),
            status: Status::Fail,
            message: Some("the test binaries listed no tests".into()),
            output: None,
        });
    }
    let passed = run.tests.iter().all(|t| t.status == Status::Pass);
    if let (Some(doc), true, false) = (doc, passed, run.timed_out) {
        run_doc_tests(doc, logs, limit.saturating_sub(started.elapsed()), &mut run)?;
    }
    let mut seen = Vec::new();
    run.hints.retain(|h| {
        let new = !seen.contains(h);
        seen.push(h.clone());
        new
    });
    run.took = started.elapsed();
    Ok(run)
}

/// The tests a libtest binary lists, or `None` if listing them took all
/// of the time `left`. The listing runs the student's code too (anything
/// it runs before `main`), so it runs as the tests do: in a process group
/// of its own, within the time left and the bounds.
fn listing(binary: &Binary, logs: &Path, left: Duration) -> Result<Option<Vec<String>>> {
    if left.is_zero() {
        return Ok(None);
    }
    let mut command = Command::new(&binary.exe);
    command.args(["--list", "--format", "terse"]);
    let log = logs.join(format!("{}.list", binary.target));
    let status = run_bounded(command, logs, &log, left, Some(Bounds::STUDENT))?;
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    Ok(status.map(|_| {
        output
            .lines()
            .filter_map(|l| l.strip_suffix(": test").map(str::to_owned))
            .collect()
    }))
}

/// Runs `doc`'s doc tests for at most `left`, adding their verdicts (one
/// `doc-tests` test if they did not build or never finished) to `run`.
fn run_doc_tests(doc: &DocTests, logs: &Path, left: Duration, run: &mut Run) -> Result<()> {
    const NAME: &str = "doc-tests";
    if left.is_zero() {
        run.timed_out = true;
        run.tests.push(hung(NAME.into()));
        return Ok(());
    }
    let mut command = crate::cargo::command();
    command
        .args(["test", "--offline", "--doc", "-p", &doc.package])
        .env("CARGO_TARGET_DIR", &doc.target_dir)
        .env("LADDER_HINT_NAMES", "1");
    let log = logs.join(format!("{NAME}.log"));
    let status = crate::limited::run(command, &doc.workspace, &log, left)?;
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    run.hints.extend(hinted(&output));
    let tests = read_libtest(&output, &[], status.is_some());
    let failed = tests.iter().any(|t| t.status != Status::Pass);
    run.tests.extend(tests);
    match status {
        None => {
            run.timed_out = true;
            run.tests.push(hung(NAME.into()));
        }
        Some(s) if !s.success() && !failed => {
            run.tests.push(read_plain(NAME, &output, Some(false)));
        }
        Some(_) => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_runs_within_the_limit_and_an_empty_one_fails() -> Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let logs = std::env::temp_dir().join(format!("xtask-grade-list-{}", std::process::id()));
        std::fs::create_dir_all(&logs)?;
        let script = |name: &str, body: &str| -> Result<Binary> {
            let exe = logs.join(name);
            std::fs::write(&exe, format!("#!/bin/sh\n{body}\n"))?;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755))?;
            Ok(Binary {
                target: name.into(),
                exe,
                libtest: true,
            })
        };
        let lists_nothing = script("lists-nothing", "exit 0")?;
        let hangs = script("hangs-when-listing", "sleep 30")?;
        let own_harness = Binary {
            libtest: false,
            ..script("own-harness", "exit 0")?
        };
        let empty = run(
            std::slice::from_ref(&lists_nothing),
            None,
            &logs,
            Duration::from_secs(10),
        )?;
        // ch02-respawn's kind: its checks in a binary of their own harness,
        // none in its library's test binary.
        let beside = run(
            &[lists_nothing, own_harness],
            None,
            &logs,
            Duration::from_secs(10),
        )?;
        let limit = Duration::from_millis(300);
        let hung = run(&[hangs], None, &logs, limit)?;
        std::fs::remove_dir_all(&logs)?;
        let verdicts = |run: &Run| -> Vec<(String, Status)> {
            run.tests
                .iter()
                .map(|t| (t.name.clone(), t.status))
                .collect()
        };
        assert_eq!(verdicts(&empty), [("tests".to_owned(), Status::Fail)]);
        assert_eq!(
            verdicts(&beside),
            [("own-harness".to_owned(), Status::Pass)]
        );
        assert_eq!(
            verdicts(&hung),
            [("hangs-when-listing".to_owned(), Status::Hung)]
        );
        assert!(
            hung.took < limit + Duration::from_secs(1),
            "{:?}",
            hung.took
        );
        Ok(())
    }

    #[test]
    fn one_limit_covers_the_exercise_s_binaries() -> Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let logs = std::env::temp_dir().join(format!("xtask-grade-run-{}", std::process::id()));
        std::fs::create_dir_all(&logs)?;
        let script = logs.join("waits");
        std::fs::write(&script, "#!/bin/sh\nsleep 30\n")?;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
        let waits = |target: &str| Binary {
            target: target.into(),
            exe: script.clone(),
            libtest: false,
        };
        let limit = Duration::from_millis(300);
        let run = run(&[waits("one"), waits("two")], None, &logs, limit)?;
        let second_ran = logs.join("two.log").exists();
        std::fs::remove_dir_all(&logs)?;
        assert!(
            !second_ran,
            "the first binary used the exercise's whole limit"
        );
        assert!(run.timed_out);
        let statuses: Vec<Status> = run.tests.iter().map(|t| t.status).collect();
        assert_eq!(statuses, [Status::Hung, Status::Hung]);
        assert!(
            run.took < limit + Duration::from_secs(1),
            "the second binary had no time of its own: {:?}",
            run.took
        );
        Ok(())
    }
}
