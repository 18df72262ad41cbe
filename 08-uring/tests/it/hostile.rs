//! `08-uring` under the hostile user's table (`testbed::testing::hostile`):
//! bad durations, a closed or full stdout, a server that goes away.

use std::time::Duration;

use testbed::testing::assert_stage_survives_hostile_use;

#[test]
fn survives_hostile_use() {
    assert_stage_survives_hostile_use(env!("CARGO_BIN_EXE_08-uring"), &[], Duration::from_secs(30));
}
