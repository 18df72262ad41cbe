//! The testbed's own binaries under the hostile user's table
//! (`testbed::testing::hostile`): bad durations, a stdout nobody reads or
//! that is full, and what each binary must refuse before it starts.

use std::time::Duration;

use testbed::harness::execute;
use testbed::testing::{
    assert_durations_refused, assert_foreign_db_untouched, assert_full_stdout_reported,
    assert_quiet_on_closed_stdout, assert_unusable_outputs_refused, run_bin, usage_error,
};

use crate::harness::{Serial, quick};

const SLOW_SERVER: &str = env!("CARGO_BIN_EXE_slow-server");
const STACK_TIMELINES: &str = env!("CARGO_BIN_EXE_stack-timelines");
const REPORT: &str = env!("CARGO_BIN_EXE_report");
const DEADLINE: Duration = Duration::from_secs(30);

#[test]
fn every_duration_flag_refuses_huge_negative_and_malformed_values() {
    assert_durations_refused(SLOW_SERVER, &["--latency", "--idle-timeout"], DEADLINE);
}

#[test]
fn a_stdout_nobody_reads_ends_quietly_and_a_full_one_is_one_line_and_status_1() {
    // The server prints its address, finds nobody reading, and ends: it
    // once panicked "failed printing to stdout: Broken pipe".
    let listen = ["--listen", "127.0.0.1:0"];
    assert_quiet_on_closed_stdout(SLOW_SERVER, &listen, 0, DEADLINE);
    assert_full_stdout_reported(SLOW_SERVER, &listen, DEADLINE);
    for program in [SLOW_SERVER, STACK_TIMELINES] {
        assert_quiet_on_closed_stdout(program, &["--version"], 0, DEADLINE);
        // clap ignores a failed write: this once exited 0, printing nothing.
        assert_full_stdout_reported(program, &["--help"], DEADLINE);
    }
}

#[test]
fn each_binary_gives_its_own_name_with_its_version() {
    for (program, name) in [
        (SLOW_SERVER, "slow-server"),
        (STACK_TIMELINES, "stack-timelines"),
    ] {
        let output = run_bin(program, &["--version"], DEADLINE);
        let banner = String::from_utf8_lossy(&output.stdout);
        assert!(banner.starts_with(&format!("{name} ")), "{banner}");
    }
}

#[test]
fn stack_timelines_names_what_is_missing() {
    let line = usage_error(STACK_TIMELINES, &[], DEADLINE);
    assert!(
        line.contains("--out") && line.contains("RUN.json"),
        "{line}"
    );
}

#[test]
fn stack_timelines_refuses_to_overwrite_one_of_its_inputs() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let run = dir.path().join("tl.json");
    let text = "not read: refused before";
    std::fs::write(&run, text).expect("a file to keep");
    let run = run.to_string_lossy().into_owned();
    // The same file by another name, too.
    let other = format!("{}/./tl.json=label", dir.path().display());
    for args in [["--out", &run, &run], ["--out", &run, &other]] {
        let line = usage_error(STACK_TIMELINES, &args, DEADLINE);
        assert!(line.contains("also an input"), "{line}");
    }
    assert_eq!(std::fs::read_to_string(&run).ok().as_deref(), Some(text));
}

#[test]
fn report_on_a_closed_or_full_stdout_ends_as_every_binary_does() {
    // It once panicked with a backtrace, exit 101: a bare `print!`.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("run.db");
    execute(&Serial::default(), &quick(Some(&db))).expect("the run finishes");
    let db = db.to_string_lossy().into_owned();
    for args in [vec!["--db", &db], vec!["--db", &db, "--json"]] {
        assert_quiet_on_closed_stdout(REPORT, &args, 0, DEADLINE);
        assert_full_stdout_reported(REPORT, &args, DEADLINE);
    }
}

#[test]
fn report_leaves_a_foreign_database_untouched() {
    assert_foreign_db_untouched(REPORT, &[], DEADLINE);
}

#[test]
fn a_fifo_a_directory_or_an_unknown_ending_is_no_output() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("new.db").to_string_lossy().into_owned();
    assert_unusable_outputs_refused(REPORT, &["--db", &db], "--timeline", DEADLINE);
    assert_unusable_outputs_refused(STACK_TIMELINES, &["run.json"], "--out", DEADLINE);
    // A stack is a picture or a page: the trace format was silently an SVG.
    let trace = dir
        .path()
        .join("x.trace.json")
        .to_string_lossy()
        .into_owned();
    let line = usage_error(STACK_TIMELINES, &["--out", &trace, "run.json"], DEADLINE);
    assert!(line.contains(".svg or .html"), "{line}");
}

#[test]
fn report_refuses_a_timeline_that_is_its_database() {
    // It once wrote the SVG over the results, and exited 0.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("r.db");
    execute(&Serial::default(), &quick(Some(&db))).expect("the run finishes");
    let before = std::fs::read(&db).expect("the results");
    let db_arg = db.to_string_lossy().into_owned();
    let other_name = format!("{}/./r.db", dir.path().display());
    for timeline in [&db_arg, &other_name] {
        let line = usage_error(REPORT, &["--db", &db_arg, "--timeline", timeline], DEADLINE);
        assert!(line.contains("same file"), "{line}");
    }
    assert!(
        std::fs::read(&db).expect("the results") == before,
        "unchanged"
    );
}

#[test]
fn report_takes_any_run_id_and_says_a_directory_is_one() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("r.db");
    execute(&Serial::default(), &quick(Some(&db))).expect("the run finishes");
    let db = db.to_string_lossy().into_owned();
    // Once "unexpected argument '-1'": an id is compared, not parsed.
    let line = usage_error(REPORT, &["--db", &db, "--run", "-1"], DEADLINE);
    assert!(line.contains("not run -1"), "{line}");
    // Once "disk I/O error".
    let folder = dir.path().to_string_lossy().into_owned();
    let line = usage_error(REPORT, &["--db", &folder], DEADLINE);
    assert!(line.contains("a directory"), "{line}");
}
