//! The stage's own failure modes: a fiber that panics, and a server whose
//! handshakes never complete.

use scheduler::Fibers;
use testbed::cli::Settings;
use testbed::conformance::quick_settings;
use testbed::harness::execute;
use testbed::testing::assert_connects_time_out;

const BIN: &str = env!("CARGO_BIN_EXE_06-scheduler");

/// Every fifth item's fiber panics where it would record: 4 of 20 items,
/// twice as many panics as there are connection slots. Each panic must
/// give its slot back, or after two of them no fiber can start and every
/// later item is lost.
#[test]
fn a_panicking_fiber_gives_its_connection_slot_back() {
    let stage = Fibers::default().panic_when_recording(|item| item.id.0 % 5 == 0);
    let settings = Settings {
        items: 20,
        conns: 2,
        ..quick_settings()
    };
    let execution = execute(&stage, &settings).expect("the run finishes");
    let report = &execution.report;
    assert_eq!(report.stage_stats["fiber_panics"], 4, "{report}");
    assert_eq!(report.lost, 4, "only the items that panicked: {report}");
    assert_eq!(report.ok, 16, "{report}");
}

/// A server whose accept queue is full drops every SYN: each connect must
/// end at `--connect-timeout` as an item failed with `timeout`, not stall
/// the run for the kernel's two minutes of retries.
#[test]
fn a_server_that_drops_syns_fails_items_with_timeout_not_a_stall() {
    assert_connects_time_out(BIN);
}
