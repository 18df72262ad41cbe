//! Stage 3 keeps the contract under every fault, whichever way its chain
//! is written and whichever drain finishes the run.

use roundrobin::{Chain, Dispatch, Drain, RoundRobin};
use testbed::conformance::{assert_conforms, assert_run_conforms, quick_settings};
use testbed::protocol::Phases;

#[test]
fn closures_conform() {
    assert_conforms(&RoundRobin::default());
}

#[test]
fn the_enum_conforms() {
    assert_conforms(&RoundRobin {
        chain: Chain::Enum,
        ..RoundRobin::default()
    });
}

#[test]
fn the_articles_drain_conforms() {
    assert_conforms(&RoundRobin {
        drain: Drain::InOrder,
        ..RoundRobin::default()
    });
}

#[test]
fn the_multi_phase_loop_also_runs_single_phase_requests() {
    let settings = testbed::cli::Settings {
        phases: Phases::One,
        ..quick_settings()
    };
    let stage = RoundRobin {
        dispatch: Some(Dispatch::MultiPhase),
        ..RoundRobin::default()
    };
    let execution = assert_run_conforms(&stage, &settings);
    assert_eq!(execution.report.ok, execution.report.items);
}

#[test]
fn one_process_one_database_connection_n_server_connections() {
    let execution = assert_run_conforms(&RoundRobin::default(), &quick_settings());
    let report = &execution.report;
    assert_eq!(report.db_connections, 1, "one database connection, shared");
    assert_eq!(report.conns, 4);
    // Accepted, not a peak: the peak depends on which thread runs first.
    assert_eq!(report.server_accepted, Some(4), "every wrapper was used");
    let lanes: std::collections::BTreeSet<u32> =
        execution.rows.iter().map(|row| row.lane.0).collect();
    assert_eq!(lanes.into_iter().collect::<Vec<_>>(), [0, 1, 2, 3]);
}

#[test]
fn wrappers_beyond_the_work_never_connect() {
    let settings = testbed::cli::Settings {
        items: 3,
        conns: 50,
        ..quick_settings()
    };
    let execution = assert_run_conforms(&RoundRobin::default(), &settings);
    assert_eq!(execution.report.server_accepted, Some(3));
    assert_eq!(execution.report.stage_stats["connections_opened"], 3);
}
