//! Running one student's exercise: each of its test binaries in a process
//! group of its own, the exercise's whole run under one time limit, and
//! libtest's output read into one verdict per test.
//!
//! The limit is the exercise's, not each binary's: a student's `loop {}`
//! or a wake-up that never comes costs the class's run at most `--limit`,
//! after which the group is killed and every test that had not reported
//! counts as hung. The binaries run with `LADDER_HINT_NAMES=1`, which makes
//! an exercise's tests, when they fail as a known mistake does, print
//! `hint: [<mistake>] <question>` on stderr: the mistake's name is what the
//! class's table shows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::build::Binary;
use crate::limited::{Bounds, run_bounded};
use crate::mistakes::hints::hinted;

/// The longest output kept per test (Exercism's runner keeps 500
/// characters too).
const OUTPUT_CHARS: usize = 500;

/// A test's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// It passed.
    Pass,
    /// It failed.
    Fail,
    /// It never finished within the limit.
    Hung,
}

/// One test's result.
#[derive(Debug, Clone, PartialEq)]
pub struct TestResult {
    /// Its name (`tests::two_receivers`, or a plain binary's target name).
    pub name: String,
    /// Its verdict.
    pub status: Status,
    /// Why it failed: the panic's message, trimmed.
    pub message: Option<String>,
    /// What else it printed, if it failed.
    pub output: Option<String>,
}

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
    // Every exercise has tests: test binaries that list none were made to
    // (a student's code that runs before `main` can end the listing).
    if !listed_any && binaries.iter().any(|b| b.libtest) && !run.timed_out {
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

fn hung(name: String) -> TestResult {
    TestResult {
        name,
        status: Status::Hung,
        message: None,
        output: None,
    }
}

/// The verdicts of a libtest binary's output, in the order of `listed`
/// (tests it reports but did not list come after). A listed test that
/// never reported is hung if the binary did not `finish` (the limit
/// stopped it), and failed if it did: the binary ended under it, by a
/// crash, an abort (a stack overflow is one) or a `std::process::exit` in
/// the code under test, which would otherwise leave only the tests that
/// had already passed.
///
/// libtest reports each test it lists once. A second report of a test,
/// or a report of one it did not list, is a line the code under test
/// printed to look like libtest's: that test fails.
pub fn read_libtest(output: &str, listed: &[String], finished: bool) -> Vec<TestResult> {
    let mut verdicts: BTreeMap<String, Status> = BTreeMap::new();
    let mut imitated: BTreeMap<String, &str> = BTreeMap::new();
    let mut order: Vec<String> = listed.to_vec();
    for line in output.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let (name, status) = if let Some(name) = rest.strip_suffix(" ... ok") {
            (name, Status::Pass)
        } else if let Some(name) = rest.strip_suffix(" ... FAILED") {
            (name, Status::Fail)
        } else if let Some(name) = rest.split_once(" ... ignored").map(|(n, _)| n) {
            order.retain(|t| t != name);
            continue;
        } else {
            continue;
        };
        if !order.iter().any(|t| t == name) {
            order.push(name.to_owned());
            if !listed.is_empty() {
                imitated.insert(
                    name.to_owned(),
                    "reported, though the binary never listed it",
                );
            }
        }
        if verdicts.insert(name.to_owned(), status).is_some() {
            imitated.insert(name.to_owned(), "reported twice");
        }
    }
    let sections = failure_sections(output);
    order
        .into_iter()
        .map(|name| {
            let (status, (message, output)) = match verdicts.get(&name) {
                _ if imitated.contains_key(&name) => (
                    Status::Fail,
                    (
                        Some(format!(
                            "{}: a line printed to look like libtest's?",
                            imitated[&name]
                        )),
                        None,
                    ),
                ),
                Some(&Status::Fail) => (
                    Status::Fail,
                    sections
                        .get(&name)
                        .map(|s| panic_and_rest(s))
                        .unwrap_or((None, None)),
                ),
                Some(&status) => (status, (None, None)),
                None if finished => (Status::Fail, (Some(ended_early(output)), None)),
                None => (Status::Hung, (None, None)),
            };
            TestResult {
                name,
                status,
                message,
                output,
            }
        })
        .collect()
}

/// How the message of a test that a finished binary never reported
/// begins.
const ENDED_EARLY: &str = "the test binary ended before this test reported";

/// Why a test that a finished binary never reported failed, with the
/// runtime's last word if it left one ("fatal runtime error: stack
/// overflow").
fn ended_early(output: &str) -> String {
    let said = output
        .lines()
        .rfind(|l| l.contains("fatal runtime error") || l.contains("has overflowed its stack"));
    match said {
        Some(line) => format!("{ENDED_EARLY}: {}", line.trim()),
        None => format!(
            "{ENDED_EARLY}: a crash, an abort, or `std::process::exit` in the code under test"
        ),
    }
}

/// Says, in the message of each test that `tests`' binary ended under,
/// that a bound ended it, and `why`.
fn ended_by(tests: &mut [TestResult], why: &str) {
    for test in tests.iter_mut().filter(|t| t.status == Status::Fail) {
        // A test that failed by its own panic before keeps that message.
        let own = test
            .message
            .as_deref()
            .is_some_and(|m| !m.starts_with(ENDED_EARLY) && m != PLAIN_FAILED);
        if !own {
            test.message = Some(format!("{ENDED_EARLY}: {why}"));
        }
    }
}

/// The message of a plain binary that failed without a panic's message.
const PLAIN_FAILED: &str = "the test exited with a failure";

/// A plain (`harness = false`) binary is one test: it passed if it exited
/// with 0.
fn read_plain(target: &str, output: &str, finished: Option<bool>) -> TestResult {
    let (message, rest) = panic_and_rest(output);
    TestResult {
        name: target.to_owned(),
        status: match finished {
            Some(true) => Status::Pass,
            Some(false) => Status::Fail,
            None => Status::Hung,
        },
        message: match finished {
            Some(false) => message.or_else(|| Some(PLAIN_FAILED.into())),
            _ => None,
        },
        output: if finished == Some(true) { None } else { rest },
    }
}

/// libtest's `---- <name> stdout ----` sections, by test name.
fn failure_sections(output: &str) -> BTreeMap<String, String> {
    let mut sections = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in output.lines() {
        let header = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"));
        let ends = header.is_some() || line == "failures:" || line.starts_with("test result: ");
        if ends && let Some((name, text)) = current.take() {
            sections.insert(name, text);
        }
        if let Some(name) = header {
            current = Some((name.to_owned(), String::new()));
        } else if let Some((_, text)) = &mut current {
            text.push_str(line);
            text.push('\n');
        }
    }
    if let Some((name, text)) = current {
        sections.insert(name, text);
    }
    sections
}

/// A test's captured output split into its panic's message and the rest.
fn panic_and_rest(section: &str) -> (Option<String>, Option<String>) {
    let mut message: Option<String> = None;
    let mut rest = String::new();
    let mut in_panic = false;
    for line in section.lines() {
        if line.starts_with("thread '") && line.contains(" panicked at ") {
            in_panic = true;
            message = Some(String::new());
        } else if in_panic && line.starts_with("note: run with `RUST_BACKTRACE") {
            in_panic = false;
        } else if let (true, Some(text)) = (in_panic, &mut message) {
            text.push_str(line);
            text.push('\n');
        } else {
            rest.push_str(line);
            rest.push('\n');
        }
    }
    let kept = |text: &str| {
        let text = text.trim();
        (!text.is_empty()).then(|| match text.char_indices().nth(OUTPUT_CHARS) {
            Some((cut, _)) => format!("{}...", &text[..cut]),
            None => text.to_owned(),
        })
    };
    (message.as_deref().and_then(kept), kept(&rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "\nrunning 3 tests\ntest tests::a ... ok\ntest tests::b ... FAILED\ntest tests::i ... ignored, slow\nhint: [if-instead-of-loop] Does a wake-up mean the value is there?\n\nfailures:\n\n---- tests::b stdout ----\nsent 3 values\n\nthread '<unnamed>' (15843) panicked at src/lib.rs:10:5:\nthe second receiver got nothing:\n  expected Some(2)\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    tests::b\n\ntest result: FAILED. 1 passed; 1 failed; 1 ignored\n";

    #[test]
    fn verdicts_messages_and_output_are_read_in_listing_order() {
        let listed = ["tests::b".to_owned(), "tests::i".into(), "tests::a".into()];
        let tests = read_libtest(OUTPUT, &listed, true);
        assert_eq!(tests.len(), 2, "the ignored test is left out: {tests:?}");
        assert_eq!(
            (tests[0].name.as_str(), tests[0].status),
            ("tests::b", Status::Fail)
        );
        assert_eq!(
            tests[0].message.as_deref(),
            Some("the second receiver got nothing:\n  expected Some(2)")
        );
        assert_eq!(tests[0].output.as_deref(), Some("sent 3 values"));
        assert_eq!(
            (tests[1].name.as_str(), tests[1].status),
            ("tests::a", Status::Pass)
        );
        assert_eq!(tests[1].message, None);
    }

    #[test]
    fn a_killed_binary_s_unreported_tests_are_hung() {
        let listed = ["tests::a".to_owned(), "tests::z".into()];
        let tests = read_libtest("test tests::a ... ok\n", &listed, false);
        assert_eq!(tests[1].status, Status::Hung);
    }

    #[test]
    fn a_binary_that_ended_under_a_test_fails_every_test_it_left() {
        let listed = ["tests::a".to_owned(), "tests::b".into(), "tests::c".into()];
        // What `std::process::exit(0)` in the code under test leaves: a
        // successful end, with two tests never reported.
        let exited = read_libtest("running 3 tests\ntest tests::a ... ok\n", &listed, true);
        let statuses: Vec<Status> = exited.iter().map(|t| t.status).collect();
        assert_eq!(statuses, [Status::Pass, Status::Fail, Status::Fail]);
        assert!(
            exited[1]
                .message
                .as_deref()
                .is_some_and(|m| m.contains("std::process::exit")),
            "{exited:?}"
        );
        let overflowed = "running 3 tests\ntest tests::a ... ok\n\nthread 'tests::b' (7) has \
                          overflowed its stack\nfatal runtime error: stack overflow, aborting\n";
        let tests = read_libtest(overflowed, &listed, true);
        assert_eq!(
            tests[2].message.as_deref(),
            Some(
                "the test binary ended before this test reported: fatal runtime error: stack \
                 overflow, aborting"
            )
        );
    }

    #[test]
    fn a_bound_that_ended_a_binary_is_named_in_the_tests_it_ended() {
        let listed = ["tests::a".to_owned(), "tests::b".into(), "tests::c".into()];
        let output = "test tests::a ... FAILED\n\nfailures:\n\n---- tests::a stdout ----\n\
                      thread 'tests::a' (3) panicked at src/lib.rs:1:1:\nwrong\n";
        let mut tests = read_libtest(output, &listed, true);
        ended_by(&mut tests, "it printed more than 64 MB");
        let messages: Vec<&str> = tests.iter().filter_map(|t| t.message.as_deref()).collect();
        assert_eq!(
            messages,
            [
                "wrong",
                "the test binary ended before this test reported: it printed more than 64 MB",
                "the test binary ended before this test reported: it printed more than 64 MB",
            ]
        );
        let mut plain = vec![read_plain("respawn", "", Some(false))];
        ended_by(&mut plain, "it used up its 4 GB of memory");
        assert!(
            plain[0]
                .message
                .as_deref()
                .is_some_and(|m| m.ends_with("4 GB of memory"))
        );
    }

    #[test]
    fn lines_that_imitate_libtest_fail_their_test() {
        let listed = ["tests::a".to_owned(), "tests::b".into()];
        let forged = "test tests::a ... FAILED\ntest tests::a ... ok\ntest tests::b ... ok\n\
                      test tests::made_up ... ok\n";
        let tests = read_libtest(forged, &listed, true);
        let verdicts: Vec<(&str, Status)> =
            tests.iter().map(|t| (t.name.as_str(), t.status)).collect();
        assert_eq!(
            verdicts,
            [
                ("tests::a", Status::Fail),
                ("tests::b", Status::Pass),
                ("tests::made_up", Status::Fail)
            ]
        );
        assert!(
            tests[0]
                .message
                .as_deref()
                .is_some_and(|m| m.starts_with("reported twice"))
        );
    }

    #[test]
    fn a_panic_message_is_kept_to_its_first_characters() {
        let long = "x".repeat(10 * OUTPUT_CHARS);
        let out = format!("thread 'main' panicked at src/lib.rs:1:1:\n{long}\n");
        let (message, _) = panic_and_rest(&out);
        assert_eq!(message.map(|m| m.chars().count()), Some(OUTPUT_CHARS + 3));
    }

    #[test]
    fn hint_lines_name_the_mistakes() {
        let out =
            "hint: [if-instead-of-loop] Why?\nhint: [never-sees-close] How?\nhint: no bracket\n";
        assert_eq!(hinted(out), ["if-instead-of-loop", "never-sees-close"]);
        assert_eq!(hinted(OUTPUT), ["if-instead-of-loop"]);
    }

    #[test]
    fn a_plain_binary_is_one_test() {
        let out = "thread 'main' panicked at tests/respawn.rs:3:1:\nno child\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        let test = read_plain("respawn", out, Some(false));
        assert_eq!(
            (test.status, test.message.as_deref()),
            (Status::Fail, Some("no child"))
        );
        assert_eq!(read_plain("respawn", "", None).status, Status::Hung);
    }

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
        let empty = run(&[lists_nothing], None, &logs, Duration::from_secs(10))?;
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
