//! The cancellation lesson, through the whole stage: a request dropped by
//! its read timeout leaves a connection whose next reply is someone
//! else's. Reusing it produces `wrong` rows; closing it (the stage's
//! default, the `InFlight` guard's poison) produces none.
//!
//! A fifth of the requests take 100 ms and the read timeout is 50 ms: a
//! slow request times out, and its reply arrives 50 ms later, while the
//! next item's request waits on that connection.

use std::time::Duration;

use executor::Futures;
use testbed::cli::Settings;
use testbed::harness::{Execution, execute};
use testbed::protocol::Phases;

fn settings() -> Settings {
    Settings {
        items: 30,
        conns: 2,
        phases: Phases::One,
        latency: "bimodal:0.2:100ms:1ms".parse().expect("a valid spec"),
        read_timeout: Some(Duration::from_millis(50)),
        ..Settings::default()
    }
}

fn run(stage: Futures) -> Execution {
    execute(&stage, &settings()).expect("the run finishes")
}

#[test]
fn reusing_a_cancelled_connection_reads_late_replies_as_the_next_items() {
    let execution = run(Futures {
        reuse_cancelled: true,
        ..Futures::default()
    });
    let report = &execution.report;
    assert!(
        report.wrong > 0,
        "the late replies were taken as answers: {report}"
    );
    assert!(
        report.wrong_rows.iter().any(|row| row.contains("expected")),
        "a wrong row is another item's result: {report}"
    );
    assert_eq!(report.lost, 0);
    // Nothing was closed: the two connections carried every item.
    assert_eq!(report.server_accepted, Some(2), "{report}");
}

#[test]
fn closing_a_cancelled_connection_leaves_nothing_wrong() {
    let execution = run(Futures::default());
    let report = &execution.report;
    assert_eq!((report.lost, report.wrong), (0, 0), "{report}");
    let timeouts = report.errors.get("timeout").copied().unwrap_or(0);
    assert!(timeouts > 0, "some requests were cancelled: {report}");
    // Each cancelled request's connection was closed, and the next item on
    // its slot opened a new one (unless no item followed on that slot).
    let accepted = report.server_accepted.expect("an embedded server counts");
    assert!(
        timeouts <= accepted && accepted <= 2 + timeouts,
        "{accepted} connections for {timeouts} timeouts: {report}"
    );
}
