//! The stage's own failure modes: a fiber that panics.

use scheduler::Fibers;
use testbed::cli::Settings;
use testbed::conformance::quick_settings;
use testbed::harness::execute;

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
