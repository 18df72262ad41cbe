//! `07-executor` under the hostile user's table (`testbed::testing::hostile`):
//! bad durations on every duration flag, a stdout nobody reads or that is
//! full, a server that goes away mid-run.

use std::time::Duration;

use testbed::testing::assert_stage_survives_hostile_use;

#[test]
fn survives_hostile_use() {
    assert_stage_survives_hostile_use(
        env!("CARGO_BIN_EXE_07-executor"),
        &[],
        Duration::from_secs(30),
    );
}
