//! `02-fork` as a user runs it. The process variant is tested here, through
//! its binary: the test harness's threads must never fork.

use std::time::Duration;

use testbed::testing::{json_report, run_bin, smoke_run, usage_error};

const BIN: &str = env!("CARGO_BIN_EXE_02-fork");
const DEADLINE: Duration = Duration::from_secs(30);

/// Runs the binary with `--json` and returns its exit code and report.
#[track_caller]
fn run_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut args = args.to_vec();
    args.push("--json");
    let output = run_bin(BIN, &args, DEADLINE);
    (output.status.code(), json_report(&output))
}

#[test]
fn processes_and_threads_both_pay_one_db_connection_per_worker() {
    for variant in [&[][..], &["--threads"]] {
        let mut args = vec!["--conns", "8", "--latency", "2ms"];
        args.extend_from_slice(variant);
        let report = smoke_run(BIN, "fork", 200, &args, DEADLINE);
        assert_eq!(report["db_connections"], 8, "{variant:?}");
        assert_eq!(report["conns"], 8);
        // Accepted, not the peak: a worker that gets a core late may
        // connect after another has finished and closed.
        assert_eq!(report["server_accepted"], 8);
    }
}

#[test]
fn fifty_consecutive_runs_never_hang() {
    // A fork-safety bug (a lock copied while held) shows as a hang, and
    // only sometimes: run it many times, each with a deadline.
    for run in 0..50 {
        let (code, report) = run_json(&["--items", "40", "--conns", "4", "--latency", "1ms"]);
        assert_eq!(code, Some(0), "run {run}: {report}");
        assert_eq!(report["ok"], 40, "run {run}: {report}");
    }
}

#[test]
fn every_item_is_recorded_once_whatever_the_worker_count() {
    // The source article's off-by-one (workers 1..=N over partitions 0..N) would lose
    // all of partition 0 here, whatever N is.
    for conns in 1..=6 {
        let conns = conns.to_string();
        let (code, report) = run_json(&["--items", "13", "--conns", &conns, "--latency", "1ms"]);
        assert_eq!(code, Some(0), "--conns {conns}: {report}");
        assert_eq!(
            (report["ok"].as_u64(), report["lost"].as_u64()),
            (Some(13), Some(0))
        );
        assert_eq!(report["db_connections"], report["conns"], "--conns {conns}");
    }
}

#[test]
fn a_killed_child_loses_its_unfinished_items_loudly() {
    // 60 items over 4 workers: worker 1 holds items 1, 5, 9, ..., 57 and
    // kills itself after recording 3 of them (1, 5 and 9).
    let (code, report) = run_json(&[
        "--items",
        "60",
        "--conns",
        "4",
        "--latency",
        "1ms",
        "--crash-worker",
        "1:3",
    ]);
    assert_eq!(code, Some(1), "a run that lost items exits 1: {report}");
    assert_eq!(report["lost"], 12, "{report}");
    assert_eq!(report["ok"], 48, "the other workers finished: {report}");
    let lost: Vec<u64> = (13..60).step_by(4).take(10).collect();
    assert_eq!(report["lost_ids"], serde_json::json!(lost));
    let note = report["notes"][0].as_str().unwrap_or_default();
    assert!(note.starts_with("worker 1 (pid "), "{note}");
    assert!(
        note.ends_with("killed by SIGKILL: 12 of its 15 items have no row"),
        "{note}"
    );
    let exits = &report["stage_stats"]["exit_status"];
    assert_eq!(exits[1], "killed by SIGKILL", "{exits}");
    assert_eq!(exits[0], "exited 0", "{exits}");
}

#[test]
fn the_default_database_is_a_temporary_file_removed_at_the_end() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let tmpdir = format!("TMPDIR={}", tmp.path().display());
    let output = run_bin(
        "env",
        &[
            &tmpdir,
            BIN,
            "--items",
            "20",
            "--conns",
            "2",
            "--latency",
            "1ms",
            "--json",
        ],
        DEADLINE,
    );
    assert!(output.status.success(), "{output:?}");
    assert_eq!(json_report(&output)["db_connections"], 2);
    let left: Vec<_> = std::fs::read_dir(tmp.path()).expect("readable").collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn db_keeps_the_results_in_a_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("results.db");
    let path_arg = path.to_string_lossy().into_owned();
    let (code, report) = run_json(&[
        "--items",
        "20",
        "--conns",
        "3",
        "--latency",
        "1ms",
        "--db",
        &path_arg,
    ]);
    assert_eq!(code, Some(0), "{report}");
    assert!(path.is_file());
}

#[test]
fn more_worker_processes_than_cpus_with_a_read_timeout_get_a_warning() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let conns = (cpus + 1).to_string();
    let items = (2 * (cpus + 1)).to_string();
    let (code, report) = run_json(&[
        "--conns",
        &conns,
        "--items",
        &items,
        "--latency",
        "1ms",
        "--read-timeout",
        "1s",
    ]);
    assert_eq!(code, Some(0), "{report}");
    let warning = format!("{conns} worker processes on {cpus} CPUs cannot all run at once");
    let notes = report["notes"].to_string();
    assert!(notes.contains(&warning), "{report}");
    // The thread variant's workers wait for no CPU of their own.
    let mut args = vec!["--conns", &conns, "--items", &items, "--latency", "1ms"];
    args.extend(["--read-timeout", "1s", "--threads"]);
    let (_, threads) = run_json(&args);
    assert!(
        !threads["notes"].to_string().contains("worker processes"),
        "{threads}"
    );
}

#[test]
fn crash_worker_is_for_processes_only_and_checked() {
    for args in [
        &["--threads", "--crash-worker", "0:1"][..],
        &["--crash-worker", "one"],
        &["--crash-worker", "1"],
        &["--crash-worker", "1:0"],
        &["--conns", "4", "--crash-worker", "4:1"],
    ] {
        usage_error(BIN, args, DEADLINE);
    }
    let output = run_bin(BIN, &["--crash-worker", "x"], DEADLINE);
    assert!(String::from_utf8_lossy(&output.stderr).contains("K:N"));
    // Beyond the workers the run forks: said in the stage's own words.
    for args in [
        &["--conns", "4", "--crash-worker", "5:1"][..],
        &["--conns", "4", "--items", "2", "--crash-worker", "3:1"],
    ] {
        let line = usage_error(BIN, args, DEADLINE);
        assert!(line.contains("forks"), "{args:?}: {line}");
    }
}

#[test]
fn help_says_what_crash_worker_does() {
    let output = run_bin(BIN, &["--help"], DEADLINE);
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for words in [
        "--threads",
        "--crash-worker",
        "SIGKILL",
        "lost",
        "teaching and testing",
    ] {
        assert!(help.contains(words), "--help lacks {words:?}:\n{help}");
    }
}

#[test]
fn a_server_that_drops_syns_fails_items_with_timeout_not_a_stall() {
    // Stage 1's connect, with its timeout: each item fails at
    // --connect-timeout instead of after the kernel's two minutes.
    testbed::testing::assert_connects_time_out(BIN);
}
