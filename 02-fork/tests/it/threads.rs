//! The thread variant keeps the contract: it does not fork, so it runs
//! in-process like any other stage.

use fork::Forked;
use testbed::conformance::{assert_conforms, assert_run_conforms, quick_settings};
use testbed::store::Lane;

#[test]
fn threads_conform() {
    assert_conforms(&Forked::threads());
}

#[test]
fn one_lane_and_one_db_connection_per_thread() {
    let settings = quick_settings();
    let execution = assert_run_conforms(&Forked::threads(), &settings);
    assert_eq!(execution.report.db_connections, settings.conns as u64);
    // Accepted, not the peak, which depends on which thread runs first.
    assert_eq!(
        execution.report.server_accepted,
        Some(settings.conns as u64)
    );
    for row in &execution.rows {
        assert_eq!(row.lane, Lane((row.id.0 % settings.conns as u64) as u32));
    }
}

#[test]
fn fewer_items_than_workers_starts_one_worker_per_item() {
    let settings = testbed::cli::Settings {
        items: 3,
        conns: 8,
        ..quick_settings()
    };
    let execution = assert_run_conforms(&Forked::threads(), &settings);
    assert_eq!(execution.report.db_connections, 3);
    assert_eq!(execution.report.conns, 3);
}
