//! A server that never completes the handshake: the connect timeout ends
//! each connect, so the run ends too, with every item failed as `timeout`.

use testbed::testing::assert_connects_time_out;

const BIN: &str = env!("CARGO_BIN_EXE_01-sync");

#[test]
fn a_server_that_drops_syns_fails_items_with_timeout_not_a_stall() {
    assert_connects_time_out(BIN);
}
