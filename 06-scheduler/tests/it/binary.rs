//! `06-scheduler` as a user runs it: flags, exit statuses, JSON.

use std::time::Duration;

use testbed::testing::{json_report, run_bin, smoke_run, usage_error};

const BIN: &str = env!("CARGO_BIN_EXE_06-scheduler");
const DEADLINE: Duration = Duration::from_secs(60);

#[test]
fn json_is_one_object_with_the_contract_keys_and_stage_stats() {
    let args = ["--conns", "8", "--latency", "1ms"];
    let report = smoke_run(BIN, "scheduler", 40, &args, DEADLINE);
    assert_eq!(report["conns"], 8);
    assert_eq!(report["stage_stats"]["stack_kib"], 64);
    assert_eq!(report["stage_stats"]["fiber_panics"], 0);
}

#[test]
fn faults_and_a_read_timeout_lose_nothing() {
    let output = run_bin(
        BIN,
        &[
            "--items",
            "100",
            "--conns",
            "10",
            "--latency",
            "1ms",
            "--faults",
            "nak=0.05,ko=0.05,hang=0.05,drop=0.05,garbage=0.05",
            "--read-timeout",
            "30ms",
            "--json",
        ],
        DEADLINE,
    );
    assert!(output.status.success(), "{output:?}");
    let report = json_report(&output);
    assert_eq!(report["lost"], 0);
    assert_eq!(report["wrong"], 0);
    assert!(report["errors"]["timeout"].as_u64() > Some(0));
}

#[test]
fn a_bad_flag_is_one_line_and_status_2() {
    for args in [
        &["--stack-kib", "1"][..],
        &["--stack-kib", "lots"],
        &["--conns", "0"],
        &["--faults", "hang=0.1"],
    ] {
        usage_error(BIN, args, DEADLINE);
    }
}
