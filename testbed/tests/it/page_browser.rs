//! The page driven in a real browser, as a reader drives it: hover, click,
//! tap, pinch, the wheel, the keyboard, the book's theme around it, and a
//! run of 100,000 items timed frame by frame.
//!
//! The driving is `tests/browser/page.py` (Playwright for Python against the
//! system's Chromium): this test writes the pages it drives, runs it, and
//! fails with what it printed. It skips, saying why, where Chromium or
//! Playwright is not installed (CI installs both, and axe-core for the
//! accessibility check).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use testbed::browser;
use testbed::outcome::{ErrorKind, Failure};
use testbed::protocol::Phases;
use testbed::report::{Report, RunFacts};
use testbed::store::Row;
use testbed::testing::{rows_on_lanes, run_command};
use testbed::timeline::{Service, Timeline, render_page};
use testbed::turns::{LoopTurns, Turn};
use testbed::workload::items;

/// How long the whole browser session may take on a busy machine.
const DEADLINE: Duration = Duration::from_secs(300);

/// `n` items on `lanes` lanes, back to back on each lane: a bar of 2 to 9
/// ms (its id's digits decide), its middle 60% at the server in two
/// service times, one item in fifty failed, and a loop that woke once per
/// two items finished.
fn run_of(n: usize, lanes: u32, label: &str) -> Timeline {
    let list = items(n, 7);
    let mut rows = rows_on_lanes(&list, lanes);
    let mut free = vec![0u64; lanes as usize];
    let mut service = Vec::new();
    for row in &mut rows {
        let i = row.id.0;
        let lane = row.lane.0 as usize;
        let dur = 2_000 + (i * 7_919 % 7_000);
        row.started_us = free[lane];
        row.finished_us = free[lane] + dur;
        free[lane] = row.finished_us + 100;
        row.outcome = if i % 50 == 49 {
            Err(Failure::new(ErrorKind::Timeout, "no reply in 50ms"))
        } else {
            Ok(list[i as usize].expected_result())
        };
        let (a, b) = (row.started_us + dur / 5, row.started_us + dur * 4 / 5);
        let mid = (a + b) / 2;
        service.push(Service {
            id: i,
            start_us: a,
            end_us: mid - 50,
        });
        service.push(Service {
            id: i,
            start_us: mid + 50,
            end_us: b,
        });
    }
    let mut ends: Vec<u64> = rows.iter().map(|r| r.finished_us).collect();
    ends.sort_unstable();
    let turns = ends
        .chunks(2)
        .map(|pair| Turn {
            woke_us: pair[0],
            slept_us: 50,
            busy_us: 20,
            ready: pair.len() as u32,
            timers: 0,
            ran: 0,
            done: pair.len() as u32,
        })
        .collect();
    let mut facts = RunFacts::new(label, Phases::Two);
    facts.concurrency = lanes as usize;
    facts.elapsed = Duration::from_micros(free.iter().copied().max().unwrap_or(1));
    facts.mean_service = Duration::from_millis(3);
    let report = Report::build(&list, &rows, facts);
    let mut timeline = Timeline::from_parts(&report, &rows, service);
    timeline.label = label.to_owned();
    timeline.with_turns(Some(LoopTurns { turns, dropped: 0 }))
}

/// The pages `page.py` drives, written into `dir`.
fn write_pages(dir: &Path) {
    let write = |name: &str, runs: &[Timeline]| {
        std::fs::write(dir.join(name), render_page(runs)).expect("a page written");
    };
    // Sixty items on four lanes: item 42 is the eleventh on lane 2.
    let list = items(60, 1);
    let rows: Vec<Row> = rows_on_lanes(&list, 4);
    let mut facts = RunFacts::new("small", Phases::Two);
    facts.concurrency = 4;
    facts.elapsed = Duration::from_millis(150);
    facts.mean_service = Duration::from_millis(5);
    let report = Report::build(&list, &rows, facts);
    let service = rows
        .iter()
        .map(|r| Service {
            id: r.id.0,
            start_us: r.started_us + 1_000,
            end_us: r.started_us + 6_000,
        })
        .collect();
    let small = Timeline::from_parts(&report, &rows, service);
    write("small.html", std::slice::from_ref(&small));
    let mut other = run_of(40, 8, "other");
    other.bars.retain(|b| b.id != 5);
    write("stack.html", &[small, other]);
    write("big.html", &[run_of(100_000, 100, "big")]);
}

#[test]
fn the_page_in_a_real_browser_by_mouse_touch_and_keyboard_and_at_100k_items() {
    if browser::chromium().is_none() {
        eprintln!("skipped: no chromium on PATH (apt-get install chromium)");
        return;
    }
    let probe = Command::new("python3")
        .args(["-c", "import playwright.sync_api"])
        .output();
    if !probe.is_ok_and(|out| out.status.success()) {
        eprintln!("skipped: no Playwright for Python (pip install playwright)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // `PAGES_KEPT_IN=DIR` keeps the pages there, to open them by hand.
    let pages = std::env::var_os("PAGES_KEPT_IN").map_or(dir.path().to_owned(), Into::into);
    write_pages(&pages);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/page.py");
    let mut command = Command::new("python3");
    command.arg(script).arg(&pages);
    let output = run_command(command, DEADLINE);
    let said = String::from_utf8_lossy(&output.stdout);
    let errors = String::from_utf8_lossy(&output.stderr);
    // The figures it measured, for the log (`cargo test -- --nocapture`).
    println!("{said}");
    assert!(
        output.status.success(),
        "the page's browser checks failed:\n{said}\n{errors}"
    );
}
