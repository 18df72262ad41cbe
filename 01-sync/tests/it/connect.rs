//! A server that never completes the handshake: the connect timeout ends
//! each connect, so the run ends too, with every item failed as `timeout`.

use std::time::Duration;

use testbed::testing::{SynDropper, json_report, run_bin};

const BIN: &str = env!("CARGO_BIN_EXE_01-sync");

#[test]
fn a_server_that_drops_syns_fails_items_with_timeout_not_a_stall() {
    let dropper = SynDropper::new();
    let server = dropper.addr().to_string();
    // Without a connect timeout each connect waits for the kernel's own
    // limit (about two minutes), and the deadline below kills the run.
    let output = run_bin(
        BIN,
        &[
            "--server",
            &server,
            "--items",
            "3",
            "--connect-timeout",
            "100ms",
            "--json",
        ],
        Duration::from_secs(20),
    );
    let report = json_report(&output);
    assert_eq!(report["errors"]["timeout"], 3, "{report}");
    assert_eq!(report["lost"], 0, "{report}");
}
