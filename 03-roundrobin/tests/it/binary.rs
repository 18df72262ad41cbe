//! `03-roundrobin` as a user runs it: flags, exit statuses, JSON.

use std::process::Command;
use std::time::Duration;

use testbed::testing::{
    json_report, limit_descriptors, run_bin, run_command, run_timed_bin, smoke_run, timeline_of,
    usage_error,
};

const BIN: &str = env!("CARGO_BIN_EXE_03-roundrobin");
const DEADLINE: Duration = Duration::from_secs(30);

#[test]
fn json_is_one_object_with_the_contract_and_stage_keys() {
    let args = ["--conns", "5", "--latency", "1ms"];
    let report = smoke_run(BIN, "roundrobin", 40, &args, DEADLINE);
    assert_eq!(report["conns"], 5);
    assert_eq!(report["db_connections"], 1);
    let stats = &report["stage_stats"];
    assert_eq!(stats["loop"], "multi");
    assert_eq!(stats["drain"], "round-robin");
    assert_eq!(stats["chain"], "closures");
    assert!(stats["model_elapsed_s"].as_f64().is_some(), "{stats}");
}

#[test]
fn faults_are_counted_as_injected_and_broken_connections_are_replaced() {
    let output = run_bin(
        BIN,
        &[
            "--items",
            "200",
            "--conns",
            "10",
            "--latency",
            "1ms",
            "--faults",
            "nak=0.05,ko=0.05,drop=0.02,garbage=0.02",
            "--json",
        ],
        DEADLINE,
    );
    assert!(output.status.success(), "{output:?}");
    let report = json_report(&output);
    assert_eq!(report["lost"], 0);
    assert_eq!(report["wrong"], 0);
    assert_eq!(report["errors"], report["expected_errors"]);
    let broken = report["errors"]["closed"].as_u64().unwrap_or(0)
        + report["errors"]["protocol"].as_u64().unwrap_or(0);
    assert!(broken > 0, "this seed drops or garbles some replies");
    let opened = report["stage_stats"]["connections_opened"]
        .as_u64()
        .expect("connections_opened is a number");
    // Ten first connections, then one more after each broken one (unless
    // its wrapper got no further item).
    assert!(opened > 10 && opened <= 10 + broken, "{report}");
}

#[test]
fn the_single_phase_loop_with_two_phases_stops_with_already_in_use() {
    let output = run_bin(
        BIN,
        &[
            "--items",
            "10",
            "--conns",
            "2",
            "--latency",
            "1ms",
            "--loop",
            "single",
        ],
        DEADLINE,
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("already in use"), "{stderr}");
    assert!(stderr.contains("--loop multi"), "{stderr}");
}

#[test]
fn a_bad_flag_is_one_line_and_status_2() {
    for args in [
        &["--loop", "both"][..],
        &["--drain", "sideways"],
        &["--chain", "rope"],
        &["--conns", "0"],
        &["--faults", "hang=0.1"],
    ] {
        usage_error(BIN, args, DEADLINE);
    }
}

#[test]
fn hang_faults_time_out_with_a_read_timeout() {
    let output = run_timed_bin(
        BIN,
        &[
            "--items",
            "60",
            "--conns",
            "4",
            "--latency",
            "1ms",
            "--faults",
            "hang=0.05",
            "--read-timeout",
            "50ms",
            "--json",
        ],
        DEADLINE,
    );
    assert!(output.status.success(), "{output:?}");
    let report = json_report(&output);
    assert_eq!(report["lost"], 0);
    assert_eq!(report["errors"], report["expected_errors"]);
    assert!(report["errors"]["timeout"].as_u64().unwrap_or(0) > 0);
}

#[test]
fn writes_a_timeline_with_one_lane_per_wrapper() {
    let args = ["--items", "12", "--conns", "3", "--latency", "1ms"];
    let svg = timeline_of(BIN, &args, DEADLINE);
    assert_eq!(svg.matches("<title>item").count(), 12);
    assert!(svg.contains("12 items, 3 lanes"), "one lane per wrapper");
}

#[test]
fn a_server_that_drops_syns_fails_items_with_timeout_not_a_stall() {
    // Stage 1's connect, with its timeout: each item fails at
    // --connect-timeout instead of after the kernel's two minutes.
    testbed::testing::assert_connects_time_out(BIN);
}

#[test]
fn more_connections_than_descriptors_is_refused_up_front_not_a_silent_hang() {
    // The client and the embedded server share one limit: 600 connections
    // are 1,200 descriptors, over 1,024. Once the run printed nothing and
    // never ended (the server backing off on EMFILE while clients waited).
    let mut command = Command::new(BIN);
    command.args([
        "--conns",
        "600",
        "--items",
        "600",
        "--latency",
        "1ms",
        "--phases",
        "1",
    ]);
    limit_descriptors(&mut command, 1_024);
    let output = run_command(command, Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for words in ["RLIMIT_NOFILE", "may open 1024", "--conns 480", "--server"] {
        assert!(stderr.contains(words), "{words}: {stderr}");
    }
}
