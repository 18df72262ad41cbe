//! Reading a test binary's output into one verdict per test: libtest's
//! `test NAME ... ok` and `... FAILED` lines, its failure sections with
//! each panic's message, and what a binary that ended early or was
//! stopped leaves untold.
//!
//! The output is the student's code's as much as libtest's: whatever it
//! prints lands among libtest's lines. So a test reported twice, or never
//! listed, fails, and a listed test with no report fails (the binary
//! ended under it) or hangs (the limit stopped it).

use std::collections::BTreeMap;

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

/// The result of a test that never finished within the limit.
pub(super) fn hung(name: String) -> TestResult {
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
pub(super) fn ended_by(tests: &mut [TestResult], why: &str) {
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
pub(super) fn read_plain(target: &str, output: &str, finished: Option<bool>) -> TestResult {
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
    use crate::mistakes::hints::hinted;

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
}
