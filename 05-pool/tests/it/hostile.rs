//! `05-pool` under the hostile user's table (`testbed::testing::hostile`):
//! bad durations on every duration flag, a stdout nobody reads or that is
//! full, a server that goes away mid-run.

use std::time::Duration;

use testbed::testing::{assert_stage_survives_hostile_use, json_report, run_bin};

#[test]
fn survives_hostile_use() {
    assert_stage_survives_hostile_use(
        env!("CARGO_BIN_EXE_05-pool"),
        &["--idle-timeout", "--checkout-timeout"],
        Duration::from_secs(30),
    );
}

#[test]
fn a_server_that_refuses_every_connect_fails_the_run_fast() {
    // With a checkout timeout of a minute, a pool that made each queued
    // checkout wait it out would meet the deadline: it once waited the
    // timeout item after item (85 of 100 recorded after 90 s, at 5 s).
    let addr = crate::util::vacant_addr().to_string();
    let args = [
        "--server",
        &addr,
        "--items",
        "100",
        "--checkout-timeout",
        "60s",
        "--json",
    ];
    let output = run_bin(
        env!("CARGO_BIN_EXE_05-pool"),
        &args,
        Duration::from_secs(30),
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report = json_report(&output);
    assert_eq!(report["errors"]["refused"], 100, "{report}");
    assert_eq!(report["lost"], 0, "{report}");
}

#[test]
fn select_beyond_fd_setsize_is_refused_before_the_run() {
    let args = ["--backend", "select", "--conns", "1100", "--items", "1100"];
    let line = testbed::testing::usage_error(
        env!("CARGO_BIN_EXE_05-pool"),
        &args,
        Duration::from_secs(30),
    );
    assert!(line.contains("FD_SETSIZE"), "{line}");
}
