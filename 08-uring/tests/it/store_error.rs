//! A failure to record does not stop the run: every item still gets its
//! answer and every other outcome is recorded; the first failure is the
//! run's error, at the end.

use std::time::Instant;

use testbed::server::{ServerConfig, SlowServer};
use testbed::stage::{Scenario, StageError};
use testbed::store::{DbTarget, Store, StoreError};
use testbed::workload::items;
use uring::ring::Ring;

use crate::util::bounded;

#[test]
fn a_duplicate_outcome_is_the_runs_error_and_the_rest_is_still_recorded() {
    let (result, rows) = bounded(|| {
        let server = SlowServer::spawn(ServerConfig {
            latency: "1ms".parse().expect("a latency"),
            ..ServerConfig::default()
        })
        .expect("a slow server");
        // Item 0 twice, first: its second outcome cannot be stored.
        let mut work = items(20, 1);
        work.insert(1, work[0].clone());
        let db = DbTarget::memory();
        // Made first, and kept open, so the in-memory database outlives the run.
        let keeper = Store::create(&db, Instant::now()).expect("a results database");
        let mut scenario = Scenario::new(work, server.addr(), db);
        scenario.conns = 2;
        let result = uring::run_on(Ring::new(8).expect("a ring"), &scenario);
        (result.map(drop), keeper.rows().expect("the rows").len())
    });
    assert!(
        matches!(result, Err(StageError::Store(StoreError::Duplicate(_)))),
        "the duplicate is the run's error: {result:?}"
    );
    assert_eq!(
        rows, 20,
        "every distinct item recorded, after the failure too"
    );
}
