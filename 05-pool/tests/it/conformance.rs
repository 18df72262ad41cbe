//! Stage 5 keeps the contract under every fault (hangs included: it has a
//! read timeout), on every backend.

use std::time::Duration;

use pool::{Backend, Knobs, TimedPool};
use testbed::cli::Settings;
use testbed::conformance::{
    assert_conforms, assert_run_conforms, assert_timed_run_conforms, quick_settings,
};

#[test]
fn epoll_conforms() {
    assert_conforms(&TimedPool::default());
}

#[test]
fn select_and_poll_conform() {
    for backend in [Backend::Select, Backend::Poll] {
        assert_conforms(&TimedPool {
            backend,
            ..TimedPool::default()
        });
    }
}

#[test]
fn every_knob_at_once_still_conforms() {
    let stage = TimedPool {
        knobs: Knobs {
            idle_timeout: Some(Duration::from_millis(2)),
            max_uses: Some(3),
            min_idle: 2,
            reuse_after_error: true,
            ..Knobs::default()
        },
        ..TimedPool::default()
    };
    assert_conforms(&stage);
}

#[test]
fn hung_requests_fail_with_timeout_and_nothing_else_does() {
    // The chapter's run with hangs, at the size of a test, with the
    // battery's 100 ms read timeout (and its second chance when a busy
    // machine reads a prompt reply late).
    let settings = Settings {
        items: 300,
        conns: 10,
        faults: "hang=0.05,drop=0.02,garbage=0.02"
            .parse()
            .expect("a fault spec"),
        read_timeout: Some(Duration::from_millis(100)),
        ..quick_settings()
    };
    let execution = assert_timed_run_conforms(&TimedPool::default(), &settings);
    let report = &execution.report;
    let expected = report.expected_errors.as_ref().expect("an embedded server");
    assert!(expected["timeout"] > 0, "hangs were injected");
    assert_eq!(report.errors.get("timeout"), expected.get("timeout"));
}

#[test]
fn the_stage_never_opens_more_than_its_size() {
    let few = Settings {
        items: 3,
        conns: 8,
        ..quick_settings()
    };
    let execution = assert_run_conforms(&TimedPool::default(), &few);
    // Accepted, not a peak: a connection may finish its one item and close
    // before the server accepts the last (whichever thread runs first).
    assert_eq!(execution.report.server_accepted, Some(3));
    let execution = assert_run_conforms(&TimedPool::default(), &quick_settings());
    assert_eq!(execution.report.server_accepted, Some(4));
    assert!(execution.rows.iter().all(|row| row.lane.0 < 4));
}
