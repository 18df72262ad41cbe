//! The suite's results as Markdown for the book: the table of every
//! behaviour against every runtime (`--all --markdown`), and one
//! scenario's traces side by side (`--traces`). The book's figures are
//! written from them, and CI runs them again to check the figures.
//!
//! Both read on a phone: one small table per group of behaviours, short
//! column heads that wrap, a difference's reason in a numbered note under
//! the tables rather than in a cell (one note for the rows that share it).

use std::fmt::Write as _;
use std::sync::Arc;

use crate::runner::{Runtime, Verdict, run};
use crate::script::Scenario;
use crate::trace::{Trace, expected_events};

/// A runtime's column head: its name with a space where it may wrap.
fn head(runtime: &dyn Runtime) -> String {
    match runtime.name() {
        "06-scheduler" => "06 fibers".to_owned(),
        "07-executor" => "07 executor".to_owned(),
        other => other.replace('-', " "),
    }
}

/// One table per group, then the numbered reasons of the differences and
/// the traces of any failure. Also returns the number of failures.
pub fn table(scenarios: &[Scenario], runtimes: &[Arc<dyn Runtime>]) -> (String, usize) {
    let mut out = String::new();
    let mut notes: Vec<String> = Vec::new();
    let mut failures = String::new();
    let mut failed = 0;
    let mut groups: Vec<&str> = scenarios.iter().map(|s| s.group).collect();
    groups.dedup();
    for group in groups {
        let _ = write!(out, "**{group}**\n\n| behaviour |");
        for rt in runtimes {
            let _ = write!(out, " {} |", head(rt.as_ref()));
        }
        out.push_str("\n|---|");
        out.push_str(&":---:|".repeat(runtimes.len()));
        out.push('\n');
        for sc in scenarios.iter().filter(|s| s.group == group) {
            // The name with spaces, so a narrow column can wrap it.
            let _ = write!(out, "| {} |", sc.name.replace('-', " "));
            for rt in runtimes {
                let cell = match run(rt, sc).0 {
                    Verdict::Pass => "pass".to_owned(),
                    Verdict::Differs(why) => {
                        // One note per reason: the rows it explains share it.
                        let note = format!("{}: {why}.", rt.name());
                        let number = match notes.iter().position(|n| *n == note) {
                            Some(i) => i + 1,
                            None => {
                                notes.push(note);
                                notes.len()
                            }
                        };
                        format!("differs ({number})")
                    }
                    Verdict::Fail { why, traces } => {
                        failed += 1;
                        let _ = writeln!(
                            failures,
                            "FAIL: {} on {}: {why}\n{traces}",
                            sc.name,
                            rt.name()
                        );
                        "**FAIL**".to_owned()
                    }
                };
                let _ = write!(out, " {cell} |");
            }
            out.push('\n');
        }
        out.push('\n');
    }
    if !notes.is_empty() {
        out.push_str("Where a runtime differs, and why:\n\n");
        for (i, note) in notes.iter().enumerate() {
            let _ = writeln!(out, "{}. {note}", i + 1);
        }
        out.push('\n');
    }
    if !failures.is_empty() {
        let _ = write!(out, "```text\n{failures}```\n");
    }
    (out, failed)
}

/// `scenario`'s expected trace, then each runtime's actual trace, one
/// column each, with the verdict at the foot. Times are milliseconds
/// since the start (`@12 ms`): they differ from run to run, the events
/// and their order do not. Also returns the number of failures.
pub fn traces(scenario: &Scenario, runtimes: &[Arc<dyn Runtime>]) -> (String, usize) {
    let runs: Vec<(Verdict, Trace)> = runtimes.iter().map(|rt| run(rt, scenario)).collect();
    let expected: Vec<String> = expected_events(&scenario.expect, false)
        .into_iter()
        .map(|e| {
            let mut text = e.name;
            if !e.not_before.is_zero() {
                let _ = write!(text, ", not before {} ms", e.not_before.as_millis());
            }
            if e.any_order {
                text.push_str(" (in any order with its neighbours so marked)");
            }
            text
        })
        .collect();
    let mut out = String::from("| expected |");
    for rt in runtimes {
        let _ = write!(out, " {} |", head(rt.as_ref()));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(runtimes.len()));
    out.push('\n');
    let rows = runs
        .iter()
        .map(|(_, t)| t.events.len())
        .chain([expected.len()])
        .max()
        .unwrap_or(0);
    for i in 0..rows {
        let _ = write!(out, "| {} |", expected.get(i).map_or("", String::as_str));
        for (_, trace) in &runs {
            let cell = trace
                .events
                .get(i)
                .map(|(name, at)| format!("{name} @{} ms", at.as_millis()))
                .unwrap_or_default();
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    let mut failed = 0;
    out.push_str("| *verdict* |");
    for (verdict, _) in &runs {
        let cell = match verdict {
            Verdict::Pass => "*pass*",
            Verdict::Differs(_) => "*differs*",
            Verdict::Fail { .. } => {
                failed += 1;
                "**FAIL**"
            }
        };
        let _ = write!(out, " {cell} |");
    }
    out.push('\n');
    (out, failed)
}
