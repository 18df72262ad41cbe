//! Stage 6 keeps the contract under every fault, read timeout included.

use scheduler::Fibers;
use testbed::cli::Settings;
use testbed::conformance::{assert_conforms, assert_run_conforms, quick_settings};

#[test]
fn fibers_conform() {
    assert_conforms(&Fibers::default());
}

#[test]
fn lanes_are_connection_slots_and_one_database_connection_records() {
    let settings = Settings {
        conns: 5,
        ..quick_settings()
    };
    let execution = assert_run_conforms(&Fibers::default(), &settings);
    assert!(execution.rows.iter().all(|row| row.lane.0 < 5));
    assert_eq!(execution.report.db_connections, 1);
    assert_eq!(execution.report.conns, 5);
    // Connections are reused across item fibers: at most one per slot.
    assert!(execution.report.server_peak_conns <= Some(5));
    let stats = &execution.report.stage_stats;
    assert_eq!(
        stats["fibers_spawned"], 61,
        "one per item, plus the spawner"
    );
    assert_eq!(stats["peak_fibers"], 6);
}
