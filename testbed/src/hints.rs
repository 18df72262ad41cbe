//! A failing test names the known mistake it looks like.
//!
//! A learner whose tests fail sees assertion messages: what went wrong,
//! not which idea is missing. But the ways to get an exercise wrong are
//! few, and known: each exercise keeps its plausible wrong answers beside
//! its solution, and the project's tooling runs each one to record which
//! tests fail for it, together with a question that leads back to the
//! missing idea. That record is [`table`], generated (do not edit
//! `hints/table.rs`).
//!
//! When an exercise's tests fail, and the tests that failed are those of
//! a known mistake, the test binary ends with the mistake's question:
//!
//! ```text
//! hint: your failing tests are those of a known mistake; ask yourself:
//! hint: after a wake-up, is the value you were woken for still there?
//! ```
//!
//! An exercise asks for this once, with [`crate::hint_on_failure!`]. In its test
//! build only, that installs, before `main`, a panic hook that notes the
//! name of each thread that panics (libtest runs each test on a thread
//! named after it), and an exit handler that, if the process exits with a
//! failure, compares the tests that failed with the table ([`matching`])
//! and prints to stderr. A binary without libtest (`harness = false`) reports
//! its own checks' failures by name with [`failed`].
//!
//! # The rule
//!
//! - A test *failed* if a thread named after it (its own, or a
//!   [`crate::testing::within`] thread, which carries its name) ended
//!   with a panic that reached libtest, or if [`failed`] named it. A
//!   panic on the main thread or on a thread without a name counts for no
//!   test. A test that fails by returning `Err` does not panic, so the
//!   exercises' tests that use `?` return [`Outcome`], whose `?` panics
//!   instead.
//! - A test *may have failed* if its thread's last panic was caught
//!   inside the test: a `catch_unwind` frame lies between the panic and
//!   libtest's call of the test (the hook keeps where each thread's last
//!   panic was raised). Caught for good (an executor hands a task's panic
//!   to its joiner, and a test checks just that), the test passed; caught
//!   to be raised again (`block_on` raises its future's panic again with
//!   `resume_unwind`, which no hook sees), it failed. The hook cannot tell
//!   which, so such a test may be in a mistake's set or not.
//! - Nothing is printed when the process exits with status 0 (every test
//!   passed), nor when nothing matches, nor when a `todo!` panicked
//!   (a starter's: the tests fail because code is missing, not wrong).
//!   A `#[should_panic]` test that passed would count as failed; the
//!   exercises have none.
//! - Tests are compared by the last `::` segment of their names, so that
//!   a test moved into a module (as the students' copy moves integration
//!   tests) is still the same test. A mistake's doc examples and tests
//!   that hung are left out of its set: a test binary never sees them.
//! - A mistake matches when its set of tests holds every test that
//!   failed and, besides, only tests that may have failed (the ones that
//!   account for more of those first). Which tests catch a mistake can vary
//!   between runs (a timed test may or may not see it), so when none
//!   matches, a mistake one test away matches too, if it shares one.
//!   At most three questions are printed (each question once).
//!
//! With `LADDER_HINT_NAMES=1` each line names its mistake too
//! (`hint: [if-instead-of-loop] after a wake-up, ...`): the run of the
//! known mistakes checks with it that each mistake's own hint comes out,
//! and grading reads which mistakes a class made.

use std::collections::BTreeSet;

mod caught;
mod outcome;
mod runtime;
mod table;

pub use outcome::{ErrorPanics, Outcome};
pub use runtime::{failed, install};

/// One known mistake of one exercise, as the run of the known mistakes
/// recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    /// The exercise (its folder's name, like `ch06-channel`).
    pub exercise: &'static str,
    /// The mistake (its file's name without `.rs`).
    pub mistake: &'static str,
    /// The question to ask oneself; empty while the mistake has none.
    pub question: &'static str,
    /// The tests that failed with it, as libtest prints their names.
    pub caught_by: &'static [&'static str],
}

impl Hint {
    /// The tests a test binary can see failing, by their last `::`
    /// segment: no doc examples, no tests that hung.
    pub fn keys(&self) -> BTreeSet<&'static str> {
        keys(self.caught_by.iter().copied())
    }
}

/// The keys of the tests in `caught_by` that a test binary can see
/// failing: no doc examples (`src/lib.rs - (line 17)`), no tests that hung
/// (`tests::x (hung)`), each by its last `::` segment.
///
/// ```
/// let keys = testbed::hints::keys(["tests::a", "src/lib.rs - (line 3)", "b (hung)"]);
/// assert_eq!(keys.into_iter().collect::<Vec<_>>(), ["a"]);
/// ```
pub fn keys<'a>(caught_by: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'a str> {
    caught_by
        .into_iter()
        .filter(|t| !is_doc_test(t) && !t.ends_with(" (hung)"))
        .map(key)
        .collect()
}

/// Every known mistake, in the order of the teachers' page.
pub fn table() -> &'static [Hint] {
    table::TABLE
}

/// A test's name as compared: its last `::` segment.
///
/// ```
/// assert_eq!(testbed::hints::key("tests::properties::model"), "model");
/// assert_eq!(testbed::hints::key("respawned"), "respawned");
/// ```
pub fn key(test: &str) -> &str {
    test.rsplit("::").next().unwrap_or(test)
}

/// Whether a caught-by entry is a doc example (`src/lib.rs - (line 17)`).
fn is_doc_test(test: &str) -> bool {
    (test.contains(" - ") && test.ends_with(')'))
        || test
            .strip_prefix(DOC_EXAMPLE)
            .is_some_and(|rest| rest.starts_with("::"))
}

/// The module that holds a crate's doc example turned into a test, in the
/// students' copy (`cargo test --bin` runs no doc tests, so the copy makes
/// the example a `#[test]` of `doc_example`). Like a doc test, it is left
/// out of the comparison: the table records no doc test.
pub const DOC_EXAMPLE: &str = "doc_example";

/// The hints of `exercise`'s mistakes whose tests are those in `failed`
/// (the rule is in the module's docs): at most three, none if `failed` is
/// empty.
///
/// ```
/// use testbed::hints::matching;
///
/// assert!(matching("ch06-channel", &[]).is_empty(), "nothing failed");
/// for hint in matching("ch06-channel", &["tests::no_receiver_returns_none_while_the_channel_is_open"]) {
///     assert_eq!(hint.exercise, "ch06-channel");
/// }
/// ```
pub fn matching(exercise: &str, failed: &[&str]) -> Vec<&'static Hint> {
    matching_in(table(), exercise, failed, &[])
}

/// [`matching`] in a given table, where the tests in `maybe` may or may
/// not have failed: their thread's last panic was caught inside the test,
/// on purpose or to be raised again (`resume_unwind`, which the hook does
/// not see). A mistake's set matches if it holds every test of `failed`
/// and, besides, only tests of `maybe`; those with more tests of `maybe`
/// come first.
pub fn matching_in<'t>(
    table: &'t [Hint],
    exercise: &str,
    failed: &[&str],
    maybe: &[&str],
) -> Vec<&'t Hint> {
    let failed: BTreeSet<&str> = failed
        .iter()
        .filter(|t| !is_doc_test(t))
        .map(|t| key(t))
        .collect();
    let maybe: BTreeSet<&str> = maybe
        .iter()
        .filter(|t| !is_doc_test(t))
        .map(|t| key(t))
        .filter(|t| !failed.contains(t))
        .collect();
    if failed.is_empty() && maybe.is_empty() {
        return Vec::new();
    }
    // How far a mistake's tests are from this run's: tests that failed
    // and it lacks, plus tests it has that did not fail; and how many of
    // `maybe` it needs.
    let distance = |keys: &BTreeSet<&str>| {
        failed.difference(keys).count()
            + keys
                .iter()
                .filter(|t| !failed.contains(*t) && !maybe.contains(*t))
                .count()
    };
    let mut candidates: Vec<(&Hint, usize, usize)> = table
        .iter()
        .filter(|h| h.exercise == exercise && !h.question.is_empty())
        .map(|h| (h, h.keys()))
        .filter(|(_, keys)| !keys.is_empty())
        .filter(|(_, keys)| keys.iter().any(|t| failed.contains(t) || maybe.contains(t)))
        .map(|(h, keys)| (h, distance(&keys), keys.intersection(&maybe).count()))
        .filter(|&(_, distance, _)| distance <= 1)
        .collect();
    let nearest = candidates.iter().map(|&(_, d, _)| d).min();
    candidates.retain(|&(_, d, _)| Some(d) == nearest);
    // The ones that account for more of the unsure tests first (a test
    // failed by a panic raised again is as failed as any); table order
    // among equals.
    candidates.sort_by_key(|&(_, _, unsure)| std::cmp::Reverse(unsure));
    let mut asked = BTreeSet::new();
    candidates
        .into_iter()
        .map(|(h, _, _)| h)
        .filter(|h| asked.insert(h.question))
        .take(3)
        .collect()
}

/// Asks, in an exercise's test build only, for the hints of its known
/// mistakes when its tests fail (see the [module](crate::hints)'s docs).
/// Item position, once per test binary (twice does no harm); the exercise
/// is named explicitly, since package and binary names differ between the
/// ladder, the students' copy and grading.
///
/// ```
/// testbed::hint_on_failure!("ch06-channel");
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! hint_on_failure {
    ($exercise:literal) => {
        #[cfg(test)]
        #[allow(unsafe_code)]
        const _: () = {
            extern "C" fn install_hints() {
                $crate::hints::install($exercise);
            }
            // SAFETY: `.init_array` holds plain `extern "C" fn()`s that the
            // loader calls once, before `main`; `install_hints` is one,
            // and needs nothing `main` sets up (it only sets a panic hook,
            // which std allows at any time, and registers an exit handler).
            #[used]
            #[unsafe(link_section = ".init_array")]
            static INSTALL_HINTS: extern "C" fn() = install_hints;
        };
    };
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const T: &[Hint] = &[
        Hint {
            exercise: "ch00-a",
            mistake: "if-not-loop",
            question: "does it look again?",
            caught_by: &["tests::looks_again", "src/lib.rs - (line 3)"],
        },
        Hint {
            exercise: "ch00-a",
            mistake: "if-not-loop-blind",
            question: "does it look again?",
            caught_by: &["tests::looks_again"],
        },
        Hint {
            exercise: "ch00-a",
            mistake: "never-closes",
            question: "who says it is over?",
            caught_by: &["tests::looks_again", "tests::closes"],
        },
        Hint {
            exercise: "ch00-a",
            mistake: "no-question-yet",
            question: "",
            caught_by: &["tests::closes"],
        },
        Hint {
            exercise: "ch00-b",
            mistake: "spins",
            question: "does it sleep?",
            caught_by: &["sleeps", "tests::timed (hung)"],
        },
    ];

    fn names(hints: &[&Hint]) -> Vec<&'static str> {
        hints.iter().map(|h| h.mistake).collect()
    }

    #[test]
    fn the_same_tests_name_the_mistake_once_per_question() {
        assert_eq!(
            names(&matching_in(T, "ch00-a", &["tests::looks_again"], &[])),
            ["if-not-loop"],
            "both mistakes failed exactly this test (the doc example left out); one question"
        );
        assert_eq!(
            names(&matching_in(
                T,
                "ch00-a",
                &["closes", "tests::looks_again"],
                &[]
            )),
            ["never-closes"],
            "compared by the last segment, in any order"
        );
        assert_eq!(
            names(&matching_in(T, "ch00-b", &["mod_of_the_copy::sleeps"], &[])),
            ["spins"],
            "a hung test is not in the set, and a module prefix changes nothing"
        );
        assert_eq!(
            names(&matching_in(
                T,
                "ch00-a",
                &[
                    "tests::looks_again",
                    "doc_example::the_example_at_the_top_of_the_file"
                ],
                &[]
            )),
            ["if-not-loop"],
            "the students' copy's doc example is a doc test: left out, as the table leaves it"
        );
        assert!(is_doc_test(
            "doc_example::the_example_at_the_top_of_the_file"
        ));
        assert!(!is_doc_test("tests::doc_example_is_not_this"));
    }

    #[test]
    fn one_test_more_or_less_still_matches_when_nothing_matches_exactly() {
        assert_eq!(
            names(&matching_in(T, "ch00-a", &["tests::closes"], &[])),
            ["never-closes"],
            "one test short of never-closes; no-question-yet has no question"
        );
        assert!(
            matching_in(T, "ch00-a", &["tests::other", "tests::another"], &[]).is_empty(),
            "nothing shared: no hint"
        );
    }

    #[test]
    fn a_test_whose_panic_was_caught_may_be_in_the_set_or_not() {
        assert_eq!(
            names(&matching_in(T, "ch00-a", &[], &["tests::looks_again"])),
            ["if-not-loop"],
            "a panic caught and raised again (the test failed)"
        );
        assert_eq!(
            names(&matching_in(T, "ch00-a", &[], &["looks_again", "closes"])),
            ["never-closes", "if-not-loop"],
            "both raised again: the mistake that accounts for both first"
        );
        assert_eq!(
            names(&matching_in(T, "ch00-a", &["closes"], &["looks_again"])),
            ["never-closes"],
            "the mistake that needs the unsure test; none lacks it exactly"
        );
        assert!(
            matching_in(T, "ch00-a", &[], &[]).is_empty(),
            "nothing failed, nothing unsure"
        );
    }

    #[test]
    fn nothing_failed_or_another_exercises_tests_match_nothing() {
        assert!(
            matching_in(T, "ch00-a", &[], &[]).is_empty(),
            "nothing failed"
        );
        assert!(
            matching_in(T, "ch00-a", &["sleeps"], &[]).is_empty(),
            "ch00-b's failing set names no ch00-a mistake"
        );
        assert!(
            matching_in(T, "ch00-z", &["tests::looks_again"], &[]).is_empty(),
            "an exercise without mistakes"
        );
    }

    #[test]
    fn the_real_table_never_names_a_mistake_for_another_exercises_tests() {
        for hint in table() {
            let failed: Vec<&str> = hint.keys().into_iter().collect();
            for other in table().iter().filter(|h| h.exercise != hint.exercise) {
                let found = matching(other.exercise, &failed);
                assert!(
                    found.is_empty(),
                    "{}/{}'s failing tests name {:?} of {}",
                    hint.exercise,
                    hint.mistake,
                    names(&found),
                    other.exercise
                );
            }
        }
    }

    proptest! {
        #![proptest_config(crate::testing::proptest_config(256))]

        #[test]
        fn at_most_three_of_this_exercise_and_never_for_nothing(
            failed in proptest::sample::subsequence(
                vec!["tests::looks_again", "closes", "sleeps", "x::y::other"], 0..=4),
            exercise in proptest::sample::select(vec!["ch00-a", "ch00-b"]),
        ) {
            let (failed, maybe) = failed.split_at(failed.len() / 2);
            let found = matching_in(T, exercise, failed, maybe);
            prop_assert!(found.len() <= 3, "at most three: {:?}", names(&found));
            prop_assert!(
                found.iter().all(|h| h.exercise == exercise && !h.question.is_empty()),
                "only this exercise's mistakes with a question: {:?}", names(&found)
            );
            prop_assert!(
                !failed.is_empty() || !maybe.is_empty() || found.is_empty(),
                "nothing failed, nothing printed"
            );
        }
    }
}
