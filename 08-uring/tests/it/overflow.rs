//! A completion queue far too small for the run: the kernel keeps what
//! does not fit (`IORING_FEAT_NODROP`), the ring fetches it back, and the
//! report finds nothing lost.

use testbed::cli::Settings;
use testbed::harness::execute;
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use uring::ring::RingOptions;

use crate::util::bounded;

/// The stage on a ring with room for 8 submissions and 8 completions,
/// where 50 lanes keep about 150 operations in flight.
struct Cramped;

impl Stage for Cramped {
    fn name(&self) -> &'static str {
        "uring"
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let ring = RingOptions::new(8).completions(8).build()?;
        uring::run_on(ring, scenario)
    }
}

#[test]
fn fifty_connections_on_a_queue_of_eight_lose_nothing() {
    let report = bounded(|| {
        let settings = Settings {
            items: 400,
            conns: 50,
            latency: "1ms".parse().expect("a latency"),
            ..Settings::default()
        };
        execute(&Cramped, &settings).expect("the run").report
    });
    assert_eq!(
        (report.ok, report.lost, report.wrong),
        (400, 0, 0),
        "every item answered and recorded"
    );
    let overflows = report.stage_stats["overflows"].as_u64().expect("a count");
    assert!(
        overflows > 0,
        "the queue of 8 overflowed: {overflows} times"
    );
}
