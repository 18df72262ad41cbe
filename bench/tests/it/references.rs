//! The references are held to the same contract as every rung: the
//! conformance battery (both request shapes, seeded faults including
//! `hang` with a read timeout, three seeds: nothing lost, nothing wrong,
//! every failure the one the server injected).

use std::time::Duration;

use bench::floor::Floor;
use bench::tasks::Tasks;
use bench::threads::Threads;
use testbed::cli::Settings;
use testbed::conformance::{assert_conforms, assert_run_conforms, quick_settings};
use testbed::latency::LatencyModel;

#[test]
fn threads_conform() {
    assert_conforms(&Threads);
}

#[test]
fn tokio_multi_thread_conforms() {
    assert_conforms(&Tasks::multi_thread());
}

#[test]
fn tokio_current_thread_conforms() {
    assert_conforms(&Tasks::current_thread());
}

#[test]
fn one_database_connection_and_a_lane_per_connection() {
    let settings = quick_settings();
    for stage in [
        &Threads as &dyn testbed::stage::Stage,
        &Tasks::multi_thread(),
        &Tasks::current_thread(),
    ] {
        let execution = assert_run_conforms(stage, &settings);
        let report = &execution.report;
        assert_eq!(report.db_connections, 1, "{}", stage.name());
        assert_eq!(report.conns, settings.conns as u64, "{}", stage.name());
        let lanes: std::collections::BTreeSet<u32> =
            execution.rows.iter().map(|row| row.lane.0).collect();
        assert!(
            lanes.len() <= settings.conns && lanes.iter().all(|&l| (l as usize) < settings.conns),
            "{}: lanes {lanes:?}",
            stage.name()
        );
        // The server never sees more connections than the stage's limit.
        assert!(
            report
                .server_peak_conns
                .is_some_and(|peak| peak <= settings.conns as u64),
            "{}: {report}",
            stage.name()
        );
    }
}

/// A thread that has used io_uring can find a later blocking wait cut short
/// with `EINTR` and no signal; the race runs the floor right after the
/// ring, on the same thread. A wait cut short is not
/// a failure: the floor waits again.
#[test]
fn the_floor_waits_again_when_its_wait_is_interrupted() {
    let settings = Settings {
        items: 20,
        conns: 1,
        latency: LatencyModel::Fixed(Duration::from_millis(2)),
        ..quick_settings()
    };
    assert_run_conforms(&uring::Uring, &settings);
    assert_run_conforms(&Floor, &settings);
}
