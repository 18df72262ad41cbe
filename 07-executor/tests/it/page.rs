//! The run page's task section, on real runs of the stage.
//!
//! `--timeline x.html` draws the executor's tasks from the trace it kept
//! of every poll and wake. testbed tests that section on made-up traces;
//! here the trace is the stage's own, so the page is checked against what
//! the executor itself counted: the report's `polls` and `wakes` figures
//! and its lints.
//!
//! The second lesson of a task section is the blocking gap. A hook that
//! calls `std::thread::sleep` inside the task keeps the loop's one thread:
//! that poll is drawn long, and the report names it. The same work handed
//! to `Handle::spawn_blocking` leaves every poll short.
//!
//! Chromium loads each page (`testbed::browser`); where it is missing the
//! tests say so and skip.

use std::path::{Path, PathBuf};
use std::time::Duration;

use executor::{Futures, Handle, Hook, HookFuture, ItemHook};
use testbed::browser;
use testbed::cli::Settings;
use testbed::harness::execute;
use testbed::report::Report;
use testbed::workload::Item;

use crate::util::within;

/// How long the hook's synchronous call holds its thread, per item.
const BLOCK: Duration = Duration::from_millis(15);

/// A synchronous call inside each item's task: on the loop's thread, or
/// on the blocking pool when `pooled`.
struct Block {
    pooled: bool,
}

impl ItemHook for Block {
    fn before<'a>(&'a self, handle: &'a Handle, _item: &'a Item) -> HookFuture<'a> {
        if self.pooled {
            Box::pin(async move {
                let done = handle.spawn_blocking(|| std::thread::sleep(BLOCK)).await;
                done.expect("a sleep does not panic");
            })
        } else {
            Box::pin(async move { std::thread::sleep(BLOCK) })
        }
    }
}

/// A run of the stage: its report, its page, and the polls of its trace
/// that took 10 ms or more (task, start and length in µs), to say which
/// when a test fails.
struct Run {
    report: Report,
    page: PathBuf,
    long: Vec<(u64, u64, u64)>,
}

/// Runs the stage (with `hook`, if any) over `items` items on `conns`
/// connections, 1 ms a line, writing its page into `dir`.
fn run(dir: &Path, items: usize, conns: usize, hook: Option<Block>) -> Run {
    let page = dir.join("run.html");
    let timeline = page.clone();
    let (report, long) = within("page-run", move || {
        let stage = Futures {
            hook: hook.map(Hook::new),
            ..Futures::default()
        };
        let settings = Settings {
            items,
            conns,
            latency: "1ms".parse().expect("a latency"),
            timeline: Some(timeline.clone()),
            ..Settings::default()
        };
        let execution = execute(&stage, &settings).expect("the stage runs");
        let trace = execution
            .tasks
            .as_ref()
            .expect("an .html page records tasks");
        let long = trace
            .polls
            .iter()
            .filter(|p| p.busy_us >= 10_000)
            .map(|p| (p.task, p.start_us, p.busy_us))
            .collect();
        execution
            .write_timeline(&timeline, None)
            .expect("the page is written");
        (execution.report, long)
    });
    assert_eq!(report.ok, items as u64, "every item is right: {report}");
    Run { report, page, long }
}

/// The `#tasks` section of the page at `path` as Chromium left it; `None`
/// when Chromium is not installed.
fn task_section(path: &Path) -> Option<String> {
    let dom = browser::load(path, "")?;
    assert_eq!(browser::errors(&dom), "", "the page's script failed");
    // `#lanes` has a `data-wakes` of its own (the loop's): read the section's.
    let at = dom
        .find(r#"<section id="tasks""#)
        .expect("a run with a trace has a task section");
    Some(dom[at..].to_owned())
}

/// The attribute `name` of `section`, as a number.
fn number(section: &str, name: &str) -> u64 {
    let value = browser::attribute(section, name).unwrap_or_else(|| panic!("no {name}"));
    value
        .parse()
        .unwrap_or_else(|_| panic!("{name}={value:?} is not a number"))
}

/// The stage's own figure `name` in `report`.
fn figure(report: &Report, name: &str) -> u64 {
    report.stage_stats[name]
        .as_u64()
        .unwrap_or_else(|| panic!("no figure {name}: {:?}", report.stage_stats))
}

#[test]
fn the_page_counts_the_polls_and_wakes_the_report_counts_and_an_arrow_to_each_poll() {
    let dir = tempfile::tempdir().unwrap();
    let Run { report, page, .. } = run(dir.path(), 40, 8, None);
    let Some(section) = task_section(&page) else {
        return; // no chromium here: said by `load`
    };
    let polls = number(&section, "data-polls");
    let wakes = number(&section, "data-wakes");
    assert_eq!(polls, figure(&report, "polls"), "polls: page and report");
    assert_eq!(wakes, figure(&report, "wakes"), "wakes: page and report");
    // Every task's first poll is caused by its spawn, and every later one
    // by the wake that made it ready: one arrow per poll.
    assert_eq!(number(&section, "data-arrows"), polls, "an arrow per poll");
    // No task of the stage wakes itself: each waits for its socket.
    assert_eq!(number(&section, "data-self-wakes"), 0);
}

#[test]
fn a_blocking_hook_is_a_long_poll_on_the_page_and_in_the_lints() {
    let dir = tempfile::tempdir().unwrap();
    let Run { report, page, .. } = run(dir.path(), 30, 5, Some(Block { pooled: false }));
    if let Some(section) = task_section(&page) {
        let long = number(&section, "data-long-polls");
        assert!(long >= 1, "long polls: {long}");
        let longest = number(&section, "data-longest-poll-us");
        assert!(
            longest >= BLOCK.as_micros() as u64,
            "the longest poll, {longest} µs, is the sleep's"
        );
    }
    assert!(
        report.lints.iter().any(|l| l.contains("one poll of")),
        "the report names the long poll: {:?}",
        report.lints
    );
}

/// How many runs the pooled test may take to show a page without a long
/// poll (see there).
const TRIES: usize = 3;

#[test]
fn the_same_work_on_the_blocking_pool_leaves_every_poll_short() {
    let dir = tempfile::tempdir().unwrap();
    // The page calls a poll long by the clock, but the machine may take
    // the loop's thread away in the middle of a short poll. The executor
    // tells the two apart by the thread's own CPU time and waits, and
    // names no lint for a poll that did not hold the thread: only then is
    // the run made again. With the work on the loop's thread every poll
    // of the hook holds it, the lint is there, and the first run fails.
    let mut tries = 1;
    let Run { report, page, long } = loop {
        let run = run(dir.path(), 30, 5, Some(Block { pooled: true }));
        if run.long.is_empty() || !run.report.lints.is_empty() || tries == TRIES {
            break run;
        }
        eprintln!(
            "try {tries}: preempted, not held (task, start µs, µs): {:?}",
            run.long
        );
        tries += 1;
    };
    if let Some(section) = task_section(&page) {
        let longest = number(&section, "data-longest-poll-us");
        assert_eq!(
            number(&section, "data-long-polls"),
            0,
            "the longest poll: {longest} µs; (task, start µs, µs) of each long one: {long:?}"
        );
    }
    assert_eq!(report.lints, Vec::<String>::new(), "no lint: {report}");
}
