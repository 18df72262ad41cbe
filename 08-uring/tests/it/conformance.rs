//! Stage 8 keeps the contract under every fault, read timeouts included.

use std::time::Duration;

use testbed::cli::Settings;
use testbed::conformance::{
    assert_conforms, assert_run_conforms, assert_timed_run_conforms, quick_settings,
};
use uring::Uring;

#[test]
fn uring_conforms() {
    assert_conforms(&Uring);
}

/// The fault mix of the other rungs' measurements, under several seeds,
/// with 50 connections: every failure is the one the server injected.
#[test]
fn every_fault_and_a_read_timeout_under_several_seeds() {
    for seed in 1..=4 {
        let settings = Settings {
            items: 500,
            conns: 50,
            latency: "2ms".parse().expect("a valid spec"),
            faults: "nak=0.05,ko=0.05,hang=0.02,drop=0.02,garbage=0.02,trickle=0.1,reset=0.05,\
                     blackhole=0.02"
                .parse()
                .expect("a valid spec"),
            read_timeout: Some(Duration::from_millis(200)),
            seed,
            ..Settings::default()
        };
        let execution = assert_timed_run_conforms(&Uring, &settings);
        // Each hang and blackhole ended by a linked timeout in the kernel.
        let timeouts = execution.report.errors.get("timeout").copied();
        let fired = execution.report.stage_stats["cancels"].to_string();
        assert!(
            fired.contains(&format!("{} linked timeouts fired", timeouts.unwrap_or(0))),
            "{fired}"
        );
    }
}

#[test]
fn the_stage_never_opens_more_than_its_size_and_reuses_its_connections() {
    let few = Settings {
        items: 3,
        conns: 8,
        ..quick_settings()
    };
    let execution = assert_run_conforms(&Uring, &few);
    // Accepted, not a peak: a connection may finish its one item and close
    // before the server accepts the last (whichever thread runs first).
    assert_eq!(execution.report.server_accepted, Some(3));
    let execution = assert_run_conforms(&Uring, &quick_settings());
    assert_eq!(execution.report.server_accepted, Some(4));
    assert!(execution.rows.iter().all(|row| row.lane.0 < 4));
}
