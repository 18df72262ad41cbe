//! `04-select` under the hostile user's table (`testbed::testing::hostile`):
//! bad durations on every duration flag, a stdout nobody reads or that is
//! full, a server that goes away mid-run.

use std::time::Duration;

use testbed::testing::assert_stage_survives_hostile_use;

#[test]
fn survives_hostile_use() {
    assert_stage_survives_hostile_use(
        env!("CARGO_BIN_EXE_04-select"),
        &[],
        Duration::from_secs(30),
    );
}

#[test]
fn select_beyond_fd_setsize_is_refused_before_the_run() {
    // Once the run started and failed at descriptor 1024, exit 1.
    let bin = env!("CARGO_BIN_EXE_04-select");
    let deadline = Duration::from_secs(30);
    let args = ["--backend", "select", "--conns", "1100", "--items", "1100"];
    let line = testbed::testing::usage_error(bin, &args, deadline);
    assert!(
        line.contains("FD_SETSIZE") && line.contains("--conns 480"),
        "{line}"
    );
}
