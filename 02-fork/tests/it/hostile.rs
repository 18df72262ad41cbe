//! `02-fork` under the hostile user's table (`testbed::testing::hostile`):
//! bad durations on every duration flag, a stdout nobody reads or that is
//! full, a server that goes away mid-run.

use std::time::Duration;

use testbed::testing::assert_stage_survives_hostile_use;

#[test]
fn survives_hostile_use() {
    assert_stage_survives_hostile_use(env!("CARGO_BIN_EXE_02-fork"), &[], Duration::from_secs(30));
}

#[test]
fn a_crash_beyond_the_workers_items_is_refused() {
    // Once accepted: the worker finished its 50 items and never died.
    let bin = env!("CARGO_BIN_EXE_02-fork");
    let deadline = Duration::from_secs(30);
    let args = ["--conns", "4", "--items", "200", "--crash-worker", "1:1000"];
    let line = testbed::testing::usage_error(bin, &args, deadline);
    assert!(line.contains("only 50 items"), "{line}");
    // 10 items over 4 workers: worker 1 has items 1, 5 and 9.
    let args = ["--conns", "4", "--items", "10", "--crash-worker", "1:4"];
    let line = testbed::testing::usage_error(bin, &args, deadline);
    assert!(line.contains("only 3 items"), "{line}");
}
