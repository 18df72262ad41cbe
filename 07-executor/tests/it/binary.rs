//! `07-executor` as a user runs it: flags, exit statuses, JSON, timeline.

use std::time::Duration;

use testbed::testing::{json_report, run_bin, smoke_run, timeline_of, usage_error};

const BIN: &str = env!("CARGO_BIN_EXE_07-executor");
const DEADLINE: Duration = Duration::from_secs(60);

#[test]
fn json_is_one_object_with_the_contract_keys_and_stage_stats() {
    let args = ["--conns", "8", "--latency", "1ms"];
    let report = smoke_run(BIN, "executor", 40, &args, DEADLINE);
    assert_eq!(report["conns"], 8);
    let stats = &report["stage_stats"];
    assert_eq!(stats["fiber_stack_bytes_06"], 64 * 1024);
    assert!(
        stats["request_future_bytes"].as_u64() < Some(1024),
        "{stats}"
    );
}

#[test]
fn the_cancellation_bug_exits_with_status_1() {
    let args = [
        "--items",
        "30",
        "--conns",
        "2",
        "--phases",
        "1",
        "--latency",
        "bimodal:0.2:100ms:1ms",
        "--read-timeout",
        "50ms",
        "--reuse-cancelled",
        "--json",
    ];
    let output = run_bin(BIN, &args, DEADLINE);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(json_report(&output)["wrong"].as_u64() > Some(0));
}

#[test]
fn writes_a_timeline_with_one_lane_per_connection_slot() {
    let args = ["--items", "30", "--conns", "3", "--latency", "1ms"];
    let svg = timeline_of(BIN, &args, DEADLINE);
    assert_eq!(svg.matches("<title>item").count(), 30);
    assert!(svg.contains("30 items, 3 lanes"), "one lane per slot");
}

#[test]
fn a_bad_flag_is_one_line_and_status_2() {
    for args in [
        &["--conns", "0"][..],
        &["--faults", "hang=0.1"],
        &["--read-timeout", "soon"],
    ] {
        usage_error(BIN, args, DEADLINE);
    }
}
