//! The hints' side of the mistakes: the table `testbed::hints` reads
//! (generated with the teachers' page, from the same verdicts, so that the
//! two cannot drift), and the proof, from the mistakes' own runs, that a
//! failing run prints its mistake's question.
//!
//! Each test binary of a mistake runs with `LADDER_HINT_NAMES=1`, so that
//! its hint lines name their mistakes (`hint: [if-instead-of-loop] ...`).
//! A mistake whose tests failed this run as the table records them must
//! have its own question among them; none may print more than three, nor
//! name a mistake of another exercise.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Result, bail};

use crate::starters::{EXERCISES, exercises};

use super::{Mistake, Verdict};

/// The generated table of hints, in testbed.
pub const TABLE: &str = "testbed/src/hints/table.rs";

/// The table's source: every mistake of `verdicts` with its question and
/// the tests that caught it, in their order.
pub fn table(verdicts: &[Verdict]) -> String {
    let mut out = String::from(
        "//! Generated, with the teachers' page of known mistakes, by the run of every \
         exercise's mistakes; do not edit.\n\n\
         use super::Hint;\n\n\
         /// Every known mistake, in the teachers' page's order: its question and\n\
         /// the tests that caught it.\n\
         #[rustfmt::skip]\n\
         pub(super) const TABLE: &[Hint] = &[\n",
    );
    for verdict in verdicts {
        let m = &verdict.mistake;
        let tests: Vec<String> = verdict.caught_by.iter().map(|t| format!("{t:?}")).collect();
        out.push_str(&format!(
            "    Hint {{ exercise: {:?}, mistake: {:?}, question: {:?}, caught_by: &[{}] }},\n",
            m.exercise,
            m.name,
            m.hint,
            tests.join(", ")
        ));
    }
    out.push_str("];\n");
    out
}

/// Every mistake of every exercise has a question, one that ends with `?`.
pub fn require_questions(root: &Path) -> Result<()> {
    let mut all = Vec::new();
    for name in exercises(root)? {
        all.extend(super::load(root, &name)?);
    }
    questions_end_with_a_question_mark(&all)
}

/// Every one of `mistakes` has a question, one that ends with `?`.
fn questions_end_with_a_question_mark(mistakes: &[Mistake]) -> Result<()> {
    let without: Vec<String> = mistakes
        .iter()
        .filter(|m| !m.hint.ends_with('?'))
        .map(|m| format!("{}/{}", m.exercise, m.name))
        .collect();
    if !without.is_empty() {
        bail!(
            "these mistakes have no question for the learner (line 2: `//? <a question ending \
             with ?>`): {}",
            without.join(", ")
        );
    }
    Ok(())
}

/// Every test binary of every exercise asks for its hints: its
/// `src/lib.rs` (the unit tests) and each `tests/*.rs` (an integration
/// test is a binary of its own, which the library's test build is not
/// part of) call `testbed::hint_on_failure!("<exercise>")`.
pub fn require_macro(root: &Path) -> Result<()> {
    let mut missing = Vec::new();
    for name in exercises(root)? {
        let dir = root.join(EXERCISES).join(&name);
        let mut binaries = vec![dir.join("src/lib.rs")];
        if let Ok(entries) = std::fs::read_dir(dir.join("tests")) {
            for entry in entries {
                let path = entry?.path();
                if path.extension().is_some_and(|e| e == "rs") {
                    binaries.push(path);
                }
            }
        }
        let call = format!("testbed::hint_on_failure!({name:?});");
        for path in binaries {
            let text = std::fs::read_to_string(&path)?;
            if !text.lines().any(|l| l.trim() == call) {
                missing.push(
                    path.strip_prefix(root)
                        .unwrap_or(&path)
                        .display()
                        .to_string(),
                );
            }
        }
    }
    if !missing.is_empty() {
        bail!(
            "these test binaries never ask for their hints: add `testbed::hint_on_failure!(\"NAME\");` \
             (NAME: the exercise) after the module doc of {}",
            missing.join(", ")
        );
    }
    Ok(())
}

/// What the runs' hint lines showed.
#[derive(Debug, Default, PartialEq)]
pub struct Checked {
    /// Mistakes whose tests failed as recorded, and whose question came out.
    pub printed: usize,
    /// Mistakes whose tests failed otherwise this run (a timed test that
    /// caught it or not, a hang, a doc example), by name: no question is
    /// owed.
    pub flaky: Vec<String>,
    /// Mistakes without a question yet, or not in the table yet.
    pub without: usize,
}

/// Checks each verdict's hint lines against `table` (the one the test
/// binaries were built with).
pub fn check(verdicts: &[Verdict], table: &[testbed::hints::Hint]) -> Result<Checked> {
    let mut checked = Checked::default();
    let mut wrong = Vec::new();
    for verdict in verdicts {
        let m = &verdict.mistake;
        let own = |name: &str| {
            table
                .iter()
                .find(|h| h.exercise == m.exercise && h.mistake == name)
        };
        let who = format!("{}/{}", m.exercise, m.name);
        if verdict.hinted.len() > 3 {
            wrong.push(format!(
                "{who}: {} hints, more than three",
                verdict.hinted.len()
            ));
        }
        if let Some(stranger) = verdict.hinted.iter().find(|n| own(n).is_none()) {
            wrong.push(format!(
                "{who}: a hint names {stranger}, no mistake of {}",
                m.exercise
            ));
        }
        let Some(recorded) = own(&m.name).filter(|h| !h.question.is_empty()) else {
            checked.without += 1;
            continue;
        };
        let failed = testbed::hints::keys(verdict.caught_by.iter().map(String::as_str));
        if failed.is_empty() || failed != recorded.keys() {
            checked.flaky.push(who);
            continue;
        }
        // More than three questions for the very same tests: three come out.
        let alike: BTreeSet<&str> = table
            .iter()
            .filter(|h| h.exercise == m.exercise && !h.question.is_empty())
            .filter(|h| h.keys() == failed)
            .map(|h| h.question)
            .collect();
        let asked = verdict
            .hinted
            .iter()
            .filter_map(|n| own(n))
            .any(|h| h.question == recorded.question);
        if asked || (alike.len() > 3 && verdict.hinted.len() == 3) {
            checked.printed += 1;
        } else {
            wrong.push(format!(
                "{who}: its tests failed as recorded, but its question did not come out \
                 (hints: {:?})",
                verdict.hinted
            ));
        }
    }
    if !wrong.is_empty() {
        bail!(
            "the hints a failing run prints are wrong (testbed::hints):\n  {}",
            wrong.join("\n  ")
        );
    }
    Ok(checked)
}

/// Checks the hint lines of the mistakes' runs, and says how many were
/// checked.
pub fn report(verdicts: &[Verdict]) -> Result<()> {
    let checked = check(verdicts, testbed::hints::table())?;
    println!(
        "hints: {} mistakes failed their tests as recorded and printed their own question; \
         {} skipped as flaky (their tests failed otherwise this run{}); {} without a question \
         or not in {} yet",
        checked.printed,
        checked.flaky.len(),
        if checked.flaky.is_empty() {
            String::new()
        } else {
            format!(": {}", checked.flaky.join(", "))
        },
        checked.without,
        TABLE
    );
    Ok(())
}

/// The mistakes named in a test binary's hint lines
/// (`hint: [name] question`), in order.
pub fn hinted(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("hint: ["))
        .filter_map(|l| l.split_once("] ").map(|(name, _)| name.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::hints::Hint;

    fn verdict(name: &str, hint: &str, caught_by: &[&str], hinted: &[&str]) -> Verdict {
        Verdict {
            mistake: Mistake {
                exercise: "ch00-x".into(),
                name: name.into(),
                comment: "Wrong.".into(),
                hint: hint.into(),
                region: 1,
                body: "x\n".into(),
            },
            caught_by: caught_by.iter().map(|t| t.to_string()).collect(),
            hinted: hinted.iter().map(|t| t.to_string()).collect(),
        }
    }

    const TABLE: &[Hint] = &[
        Hint {
            exercise: "ch00-x",
            mistake: "m",
            question: "does it loop?",
            caught_by: &["tests::a", "src/lib.rs - (line 3)"],
        },
        Hint {
            exercise: "ch00-x",
            mistake: "n",
            question: "",
            caught_by: &["tests::b"],
        },
    ];

    #[test]
    fn a_run_that_failed_as_recorded_must_print_its_question() {
        let ok = check(
            &[verdict("m", "does it loop?", &["tests::a"], &["m"])],
            TABLE,
        );
        assert_eq!(
            ok.expect("printed"),
            Checked {
                printed: 1,
                flaky: Vec::new(),
                without: 0
            },
            "its own name came out"
        );
        let missing = check(&[verdict("m", "does it loop?", &["tests::a"], &[])], TABLE);
        assert!(
            missing.is_err(),
            "no hint, though its tests failed as recorded"
        );
        let flaky = check(
            &[verdict(
                "m",
                "does it loop?",
                &["tests::a", "tests::c"],
                &[],
            )],
            TABLE,
        );
        assert_eq!(
            flaky.expect("owed nothing").flaky,
            ["ch00-x/m"],
            "another set this run"
        );
        let none = check(&[verdict("n", "", &["tests::b"], &[])], TABLE);
        assert_eq!(none.expect("owed nothing").without, 1, "no question");
    }

    #[test]
    fn more_than_three_or_a_stranger_is_wrong() {
        let many = verdict("m", "does it loop?", &["tests::a"], &["m", "n", "m", "n"]);
        assert!(check(&[many], TABLE).is_err(), "four lines");
        let stranger = verdict("m", "does it loop?", &["tests::a"], &["m", "elsewhere"]);
        assert!(
            check(&[stranger], TABLE).is_err(),
            "not a mistake of ch00-x"
        );
    }

    #[test]
    fn every_test_binary_of_the_exercises_asks_for_its_hints() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask is in the repository");
        if let Err(e) = require_macro(root) {
            panic!("{e:#}");
        }
    }

    #[test]
    fn hint_lines_are_read_and_the_table_holds_every_verdict() {
        let out = "test tests::a ... FAILED\n\nhint: your failing tests ...; ask yourself:\n\
                   hint: [m] does it loop?\nhint: [n] is it? [really]\n";
        assert_eq!(hinted(out), ["m", "n"]);
        let text = table(&[verdict("m", "does \"it\" loop?", &["tests::a"], &[])]);
        assert!(
            text.contains(
                r#"Hint { exercise: "ch00-x", mistake: "m", question: "does \"it\" loop?", caught_by: &["tests::a"] },"#
            ),
            "one row per mistake, its strings escaped: {text}"
        );
        let questions = |hint: &str| vec![verdict("m", hint, &["tests::a"], &[]).mistake];
        assert!(questions_end_with_a_question_mark(&questions("does it loop?")).is_ok());
        assert!(
            questions_end_with_a_question_mark(&questions("")).is_err(),
            "none"
        );
        assert!(
            questions_end_with_a_question_mark(&questions("it loops.")).is_err(),
            "not a question"
        );
    }
}
