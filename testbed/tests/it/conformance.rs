//! The battery's second chance for replies read late: a busy machine may
//! turn a prompt reply into a `timeout`, once; a stage that is always late,
//! or wrong in any other way, still fails.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use testbed::cli::Settings;
use testbed::conformance::{assert_timed_run_conforms, quick_settings};
use testbed::outcome::{ErrorKind, Failure};
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::store::Lane;
use testbed::testing::{json_report, run_timed_bin};

use crate::harness::request;

/// How a [`Stalling`] stage misbehaves on its first item.
#[derive(Clone, Copy)]
enum Stall {
    /// Stalls for this long after the first item's reply, in its first run
    /// only: a neighbour took the CPU once.
    FirstRun(Duration),
    /// Stalls for half as long again as the read timeout, every run.
    Always,
    /// Calls the first item's success a `ko`: a stage that misreads.
    Misread,
}

/// One connection per item, one item at a time, and a read timeout counted
/// from the request's start, as a deadline: a stall after the reply came
/// makes it late.
struct Stalling {
    stall: Stall,
    runs: AtomicUsize,
}

impl Stalling {
    fn new(stall: Stall) -> Stalling {
        Stalling {
            stall,
            runs: AtomicUsize::new(0),
        }
    }
}

impl Stage for Stalling {
    fn name(&self) -> &'static str {
        "stand-in that stalls on purpose"
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let run = self.runs.fetch_add(1, Ordering::SeqCst);
        let limit = scenario.read_timeout.expect("a read timeout");
        let mut store = scenario.open_store()?;
        for (index, item) in scenario.items.iter().enumerate() {
            let started = Instant::now();
            let mut outcome = request(scenario, item);
            if index == 0 {
                match self.stall {
                    Stall::FirstRun(stall) if run == 0 => thread::sleep(stall),
                    Stall::FirstRun(_) => {}
                    Stall::Always => thread::sleep(limit * 3 / 2),
                    Stall::Misread => outcome = Err(Failure::new(ErrorKind::Ko, "misread")),
                }
                if started.elapsed() > limit {
                    outcome = Err(Failure::new(ErrorKind::Timeout, "read after the deadline"));
                }
            }
            store.record(item.id, Lane(0), started, &outcome)?;
        }
        Ok(RunStats::new(1))
    }
}

fn settings() -> Settings {
    Settings {
        items: 5,
        conns: 1,
        read_timeout: Some(Duration::from_millis(100)),
        ..quick_settings()
    }
}

/// Runs the check, and says whether it passed and how many runs it took.
fn check(stall: Stall) -> (bool, usize) {
    let stage = Stalling::new(stall);
    let passed = catch_unwind(AssertUnwindSafe(|| {
        assert_timed_run_conforms(&stage, &settings());
    }))
    .is_ok();
    (passed, stage.runs.load(Ordering::SeqCst))
}

#[test]
fn a_reply_read_late_once_is_read_again_with_patience() {
    let stage = Stalling::new(Stall::FirstRun(Duration::from_millis(150)));
    let execution = assert_timed_run_conforms(&stage, &settings());
    assert_eq!(stage.runs.load(Ordering::SeqCst), 2, "a second run");
    assert_eq!(execution.report.ok, 5, "{}", execution.report);
}

#[test]
fn a_stage_that_is_always_late_fails() {
    assert_eq!(check(Stall::Always), (false, 2));
}

#[test]
fn a_failure_of_another_kind_fails_at_once() {
    assert_eq!(check(Stall::Misread), (false, 1));
}

/// A stage binary's second chance: a stand-in script that prints a report
/// with one reply read late at `--read-timeout 100ms`, and a clean one with
/// any other, and logs each run.
#[test]
fn a_binary_that_read_a_reply_late_runs_again_with_patience() {
    let clean =
        assert_timed_run_conforms(&Stalling::new(Stall::FirstRun(Duration::ZERO)), &settings())
            .report;
    let mut late = clean.clone();
    late.ok -= 1;
    late.failed += 1;
    late.errors.insert("timeout".into(), 1);
    let json = |report| serde_json::to_string(report).expect("a report serialises");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = dir.path().join("stage");
    let log = dir.path().join("runs");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\ncase \"$*\" in\n*'--read-timeout 100ms'*) echo '{}';;\n*) echo '{}';;\nesac\n",
        log.display(),
        json(&late),
        json(&clean)
    );
    std::fs::write(&program, script).expect("write the stand-in");

    // Run by `sh`, not executed itself: a file just written can be "busy"
    // for exec while another test thread forks.
    let program = program.to_str().expect("a UTF-8 path");
    let args = [program, "--json", "--read-timeout", "100ms"];
    let output = run_timed_bin("/bin/sh", &args, Duration::from_secs(10));
    assert_eq!(json_report(&output)["errors"], serde_json::json!({}));
    let runs = std::fs::read_to_string(&log).expect("the log");
    assert_eq!(
        runs,
        "--json --read-timeout 100ms\n--json --read-timeout 1.00s\n"
    );
}
