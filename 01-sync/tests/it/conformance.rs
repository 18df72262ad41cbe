//! Stage 1 keeps the contract under every fault, in both shapes.

use sync::Blocking;
use testbed::conformance::{assert_conforms, assert_run_conforms, quick_settings};

#[test]
fn reused_connection_conforms() {
    assert_conforms(&Blocking::default());
}

#[test]
fn connection_per_request_conforms() {
    assert_conforms(&Blocking {
        connect_per_request: true,
    });
}

#[test]
fn one_lane_and_one_database_connection() {
    let execution = assert_run_conforms(&Blocking::default(), &quick_settings());
    assert!(execution.rows.iter().all(|row| row.lane.0 == 0));
    assert_eq!(execution.report.db_connections, 1);
    assert_eq!(
        execution.report.conns, 1,
        "--conns is ignored: one request at a time"
    );
    // A blocking client never has two connections open at once.
    assert_eq!(execution.report.server_peak_conns, Some(1));
}
