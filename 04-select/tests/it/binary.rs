//! `04-select` as a user runs it: flags, exit statuses, JSON, the
//! `FD_SETSIZE` limit.

use std::time::Duration;

use testbed::testing::{json_report, run_bin, smoke_run, timeline_of, usage_error};

const BIN: &str = env!("CARGO_BIN_EXE_04-select");
const DEADLINE: Duration = Duration::from_secs(60);

#[test]
fn json_is_one_object_with_the_contract_keys_on_every_backend() {
    for backend in ["select", "poll", "epoll"] {
        let args = ["--backend", backend, "--latency", "1ms"];
        let report = smoke_run(BIN, "select", 40, &args, DEADLINE);
        assert_eq!(report["db_connections"], 1);
        assert_eq!(report["stage_stats"]["backend"], backend);
    }
}

#[test]
fn a_bad_backend_is_one_line_and_status_2() {
    let stderr = usage_error(BIN, &["--backend", "kqueue"], DEADLINE);
    assert!(stderr.contains("select, poll or epoll"), "{stderr}");
}

#[test]
fn a_read_timeout_is_refused_with_a_pointer_to_stage_5() {
    let output = run_bin(BIN, &["--read-timeout", "100ms"], DEADLINE);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("05-pool"));
}

#[test]
fn select_refuses_descriptors_past_fd_setsize_before_the_run() {
    // 1,100 client connections plus the embedded server's 1,100: client
    // descriptors would pass 1023 long before the pool is full, so the run
    // is refused before it starts (it once failed half-way, exit 1).
    let args = ["--conns", "1100", "--items", "1200", "--latency", "1ms"];
    let output = run_bin(
        BIN,
        &[&["--backend", "select"][..], &args].concat(),
        DEADLINE,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "refused: {stderr}");
    assert!(stderr.contains("FD_SETSIZE"), "{stderr}");
    // poll has no such limit: the same run completes.
    let output = run_bin(
        BIN,
        &[&["--backend", "poll", "--json"][..], &args].concat(),
        DEADLINE,
    );
    assert!(output.status.success(), "{output:?}");
    assert_eq!(json_report(&output)["ok"], 1200);
}

#[test]
fn writes_a_timeline_with_one_lane_per_slot() {
    let args = ["--items", "30", "--conns", "3", "--latency", "1ms"];
    let svg = timeline_of(BIN, &args, DEADLINE);
    assert_eq!(svg.matches("<title>item").count(), 30);
    assert!(svg.contains("30 items, 3 lanes"), "one lane per slot");
}
