//! The table: every behaviour against every runtime.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::rt_executor::Executor07;
use crate::rt_fibers::Fibers06;
use crate::rt_tokio::Tokio;
use crate::runner::{Runtime, Verdict, verdict};
use crate::script::Scenario;

/// The runtimes the suite holds to the scenarios: 06, 07, then tokio's two
/// flavours, the references.
pub fn runtimes() -> Vec<Arc<dyn Runtime>> {
    vec![
        Arc::new(Fibers06),
        Arc::new(Executor07 { seed: None }),
        Arc::new(Tokio {
            multi_thread: false,
        }),
        Arc::new(Tokio { multi_thread: true }),
    ]
}

/// Runs every scenario on every runtime: the table, then the details of
/// each failure (both traces) and each difference (its reason).
pub fn table(scenarios: &[Scenario], runtimes: &[Arc<dyn Runtime>]) -> (String, usize) {
    let width = scenarios.iter().map(|s| s.name.len()).max().unwrap_or(8);
    let mut out = format!("{:<10} {:<width$}", "group", "behaviour");
    for rt in runtimes {
        let head = match rt.seed() {
            Some(seed) => format!("{} seed {seed}", rt.name()),
            None => rt.name().to_owned(),
        };
        let _ = write!(out, " | {head:<12}");
    }
    out.push('\n');
    let mut notes = String::new();
    let mut failures = 0;
    for sc in scenarios {
        let _ = write!(out, "{:<10} {:<width$}", sc.group, sc.name);
        for rt in runtimes {
            let cell = match verdict(rt, sc) {
                Verdict::Pass => "pass".to_owned(),
                Verdict::Differs(why) => {
                    let _ = writeln!(notes, "differs: {} on {}: {why}", sc.name, rt.name());
                    "differs*".to_owned()
                }
                Verdict::Fail { why, traces } => {
                    failures += 1;
                    let _ = writeln!(notes, "FAIL: {} on {}: {why}\n{traces}", sc.name, rt.name());
                    "FAIL".to_owned()
                }
            };
            let _ = write!(out, " | {cell:<12}");
        }
        out.push('\n');
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes);
    }
    (out, failures)
}

/// Keeps the panics that scenarios cause on purpose (`Step::Panic`) off
/// stderr; any other panic is printed as usual.
pub fn quiet_scenario_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let planned = info
            .payload()
            .downcast_ref::<String>()
            .is_some_and(|m| m.starts_with("scenario panic"));
        if !planned {
            default(info);
        }
    }));
}
