//! The page of a run whose executor recorded its tasks, loaded in a real
//! browser where one is installed (`testbed::browser`): the tasks' section
//! says what it drew, and a run without a trace has no such section.
//!
//! The traces are made up (`testbed::sample::task_trace`): a known count
//! of polls and wakes, a 200 ms blocking poll or none, a self-wake streak;
//! and one task's spin of thousands of polls (`sample::spin_trace`), which
//! the page draws as one bar.

use std::path::Path;
use std::time::{Duration, Instant};

use testbed::browser::{self, count};
use testbed::protocol::Phases;
use testbed::report::{Report, RunFacts};
use testbed::sample::{BLOCKING_POLL_US, SELF_WAKE_STREAK, spin_trace, task_trace};
use testbed::tasks::TaskTrace;
use testbed::testing::rows_on_lanes;
use testbed::timeline::{Timeline, render_page, render_trace};
use testbed::workload::items;

/// Twenty items on four lanes (`rows_on_lanes`), with `tasks` recorded.
fn timeline(tasks: Option<TaskTrace>) -> Timeline {
    let list = items(20, 1);
    let rows = rows_on_lanes(&list, 4);
    let mut facts = RunFacts::new("executor", Phases::Two);
    facts.concurrency = 4;
    facts.elapsed = Duration::from_millis(50);
    let report = Report::build(&list, &rows, facts);
    Timeline::new(&report, &rows, &[], Instant::now()).with_tasks(tasks)
}

fn write(dir: &Path, name: &str, timeline: Timeline) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, render_page(&[timeline])).unwrap();
    path
}

#[test]
fn a_page_without_a_trace_has_no_task_section() {
    let page = render_page(&[timeline(None)]);
    assert!(!page.contains(r#"id="tasks""#), "no trace, no section");
    assert!(!page.contains("data-task-mark"), "nor its legend");
}

#[test]
fn the_task_section_draws_every_poll_and_an_arrow_per_wake_that_caused_one() {
    let dir = tempfile::tempdir().unwrap();
    let trace = task_trace(6, 4, true);
    let path = write(dir.path(), "tasks.html", timeline(Some(trace.clone())));
    let Some(dom) = browser::load(&path, "") else {
        return; // no chromium here: said by `load`
    };
    assert_eq!(browser::errors(&dom), "", "the page's script failed");
    let caused: std::collections::BTreeSet<u32> =
        trace.polls.iter().filter_map(|p| p.cause).collect();
    // The streak's self-woken polls are one bar, one arrow into it.
    let merged = SELF_WAKE_STREAK - 2;
    // `#lanes` has a `data-wakes` of its own (the loop's): read the section's.
    let section = &dom[dom.find(r#"<section id="tasks""#).expect("the section")..];
    let attr = |name| browser::attribute(section, name).map(str::to_owned);
    let polls = trace.polls.len().to_string();
    let wakes = trace.wakes.len().to_string();
    let arrows = (caused.len() - merged).to_string();
    assert_eq!(attr("data-polls").as_deref(), Some(polls.as_str()));
    assert_eq!(attr("data-wakes").as_deref(), Some(wakes.as_str()));
    assert_eq!(attr("data-arrows").as_deref(), Some(arrows.as_str()));
    // The whole run is in view, and few enough arrows to draw them all.
    assert_eq!(attr("data-arrows-drawn").as_deref(), Some(arrows.as_str()));
    let streak = (SELF_WAKE_STREAK - 1).to_string();
    assert_eq!(attr("data-self-wakes").as_deref(), Some(streak.as_str()));
    assert_eq!(attr("data-spins").as_deref(), Some("1"));
    assert_eq!(attr("data-long-polls").as_deref(), Some("1"));
    let longest = BLOCKING_POLL_US.to_string();
    assert_eq!(
        attr("data-longest-poll-us").as_deref(),
        Some(longest.as_str())
    );
    assert!(
        dom.contains("longest poll 200 ms, 1 of 10.0 ms or more"),
        "the summary says it"
    );
    assert_eq!(
        count(&dom, r#"data-task-mark="long""#),
        1,
        "the legend explains the mark"
    );
}

#[test]
fn the_trace_export_has_the_tasks_process_beside_the_connections() {
    let trace = task_trace(3, 2, true);
    let json: serde_json::Value =
        serde_json::from_str(&render_trace(&timeline(Some(trace.clone())))).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    assert!(
        events
            .iter()
            .any(|e| e["ph"] == "M" && e["args"]["name"] == "tasks"),
        "a process named tasks"
    );
    let flows = events.iter().filter(|e| e["ph"] == "f").count();
    assert_eq!(flows, trace.polls.len(), "an arrow to every poll");
    let without: serde_json::Value = serde_json::from_str(&render_trace(&timeline(None))).unwrap();
    let pids: std::collections::BTreeSet<_> = without["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["pid"].to_string())
        .collect();
    assert_eq!(pids.len(), 1, "no trace, no tasks process: {pids:?}");
}

#[test]
fn a_trace_without_a_blocking_poll_marks_no_long_poll() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "quick.html",
        timeline(Some(task_trace(6, 4, false))),
    );
    let Some(dom) = browser::load(&path, "") else {
        return;
    };
    assert_eq!(browser::errors(&dom), "");
    let section = &dom[dom.find(r#"<section id="tasks""#).expect("the section")..];
    assert_eq!(browser::attribute(section, "data-long-polls"), Some("0"));
    assert_eq!(
        browser::attribute(section, "data-longest-poll-us"),
        Some("40")
    );
    assert!(dom.contains("0 of 10.0 ms or more"));
}

#[test]
fn a_spin_of_thousands_of_polls_is_one_bar() {
    let dir = tempfile::tempdir().unwrap();
    let spins = 5_000;
    let path = write(
        dir.path(),
        "spin.html",
        timeline(Some(spin_trace(&[spins]))),
    );
    let Some(dom) = browser::load(&path, "") else {
        return;
    };
    assert_eq!(browser::errors(&dom), "");
    let section = &dom[dom.find(r#"<section id="tasks""#).expect("the section")..];
    let attr = |name| browser::attribute(section, name);
    // The totals count every poll and wake of the trace...
    let polls = (spins + 2).to_string();
    assert_eq!(attr("data-polls"), Some(polls.as_str()));
    assert_eq!(attr("data-wakes"), Some(polls.as_str()));
    assert_eq!(attr("data-self-wakes"), Some(spins.to_string().as_str()));
    // ...while the spin is one bar with one arrow into it: the spawn's
    // poll, the socket's, and the spin are all that is drawn.
    assert_eq!(attr("data-spins"), Some("1"));
    assert_eq!(attr("data-arrows"), Some("3"));
    assert_eq!(attr("data-arrows-drawn"), Some("3"));
    assert_eq!(attr("data-bars-drawn"), Some("3"));
    assert!(
        dom.contains("(1 spin, each drawn as one bar)"),
        "the summary says it"
    );
}

/// Writes the pages a person looks at (and times) into `$TASK_PAGES`:
/// `tasks.html`, a small trace with its blocking poll; `quick.html`, the
/// same without it (its self-wakes and arrows then fill the view);
/// `big.html`, 200,000 polls of 2,000 tasks (the log's cap; the 200
/// busiest rows drawn); `long.html`, 200,000 polls of 200 tasks, all
/// drawn; `spin.html`, one task spinning for 90,000 polls. Run by hand:
/// `TASK_PAGES=/tmp/pages cargo test -p testbed --test it task_page::pages -- --ignored`.
#[test]
#[ignore = "writes pages for a person to look at"]
fn pages() {
    let dir = std::path::PathBuf::from(std::env::var("TASK_PAGES").expect("TASK_PAGES=dir"));
    std::fs::create_dir_all(&dir).unwrap();
    write(&dir, "tasks.html", timeline(Some(task_trace(12, 6, true))));
    write(&dir, "quick.html", timeline(Some(task_trace(12, 6, false))));
    let big = timeline(Some(task_trace(2_000, 99, true)));
    write(&dir, "big.html", big);
    let long = timeline(Some(task_trace(200, 999, true)));
    write(&dir, "long.html", long);
    write(&dir, "spin.html", timeline(Some(spin_trace(&[90_000]))));
}
