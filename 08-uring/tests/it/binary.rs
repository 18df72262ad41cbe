//! `08-uring` as a user runs it: flags, exit statuses, JSON, timeline, an
//! external server, bounded connects, interrupts, the descriptor budget.

use std::process::Command;
use std::time::{Duration, Instant};

use testbed::server::{ServerConfig, SlowServer};
use testbed::store::{DbTarget, Store};
use testbed::testing::{
    Signal, assert_connects_time_out, json_report, limit_descriptors, run_bin, run_bin_interrupted,
    run_command, smoke_run, timeline_of, usage_error,
};

const BIN: &str = env!("CARGO_BIN_EXE_08-uring");
const DEADLINE: Duration = Duration::from_secs(60);

#[test]
fn json_is_one_object_with_the_contract_keys_and_the_ring_figures() {
    let args = ["--conns", "8", "--latency", "1ms"];
    let report = smoke_run(BIN, "uring", 40, &args, DEADLINE);
    let stats = &report["stage_stats"];
    assert!(
        stats["ring"].as_str().is_some_and(|s| s.contains("enters")),
        "{stats}"
    );
    assert!(stats["enters_per_item"].as_f64() > Some(0.0), "{stats}");
}

#[test]
fn writes_a_timeline_with_one_lane_per_connection() {
    let args = ["--items", "30", "--conns", "3", "--latency", "1ms"];
    let svg = timeline_of(BIN, &args, DEADLINE);
    assert_eq!(svg.matches("<title>item").count(), 30);
    assert!(svg.contains("30 items, 3 lanes"), "one lane per connection");
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

#[test]
fn an_external_server_is_used_as_it_is() {
    let server = SlowServer::spawn(ServerConfig {
        latency: "1ms".parse().expect("a latency"),
        ..ServerConfig::default()
    })
    .expect("a server");
    let addr = server.addr().to_string();
    let args = ["--server", &addr, "--items", "50", "--conns", "5", "--json"];
    let output = run_bin(BIN, &args, DEADLINE);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(json_report(&output)["ok"], 50);
    server.shutdown();
}

#[test]
fn an_unreachable_server_fails_every_item_and_loses_none() {
    // Port 1 on loopback: nothing listens there, connects are refused.
    let args = ["--server", "127.0.0.1:1", "--items", "5", "--json"];
    let output = run_bin(BIN, &args, DEADLINE);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report = json_report(&output);
    assert_eq!(report["errors"]["refused"], 5, "{report}");
    assert_eq!(report["lost"], 0, "{report}");
}

/// A server whose accept queue is full drops every SYN: each connect ends
/// at `--connect-timeout`, by its linked timeout, as a `timeout`.
#[test]
fn a_server_that_drops_syns_fails_items_with_timeout_not_a_stall() {
    assert_connects_time_out(BIN);
}

/// Rows in a results file so far (0 before it has any).
fn rows(db: &std::path::Path) -> usize {
    Store::open(&DbTarget::File(db.to_owned()), Instant::now())
        .and_then(|store| store.rows())
        .map_or(0, |rows| rows.len())
}

#[test]
fn an_interrupted_run_says_so_with_what_it_recorded() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("i.db");
    let db_arg = db.to_string_lossy().into_owned();
    // 3,000 items two at a time, 40 ms each: a minute, never finished.
    let args = [
        "--items",
        "3000",
        "--conns",
        "2",
        "--latency",
        "20ms",
        "--db",
        &db_arg,
    ];
    let output = run_bin_interrupted(BIN, &args, Signal::SIGINT, || rows(&db) > 0, DEADLINE);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.starts_with("uring: interrupted by SIGINT after "),
        "{stderr}"
    );
    assert!(stderr.contains("lost                0"), "{stderr}");
}

#[test]
fn more_connections_than_descriptors_is_refused_up_front() {
    // 600 connections and the embedded server's 600: over 1,024.
    let mut command = Command::new(BIN);
    command.args(["--conns", "600", "--items", "600", "--latency", "1ms"]);
    limit_descriptors(&mut command, 1_024);
    let output = run_command(command, Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("RLIMIT_NOFILE"), "{stderr}");
}
