//! The cross-stage conformance check: any stage's tests call
//! [`assert_conforms`] to prove the stage keeps the contract.
//!
//! Under seeded faults, every item must end with exactly one outcome, and
//! the right one: nothing lost, nothing wrong, and every failure the one the
//! server forced (`errors == expected_errors`). A stage that fails this is
//! not "a bit slow", it is losing or inventing data. And no run gives a
//! warning (a lint of the report, see `Report::lints`): a stage written
//! right neither blocks its loop nor spins, faults or not.
//!
//! The faults are every kind the server has, `reset` among them (an error
//! from `read` where `drop` gives end-of-file), and `hang` and `blackhole`
//! when the stage has a read timeout; then a heavy-tailed latency
//! (`pareto`), and an outage window, whose failures no plan predicts: there
//! the check is that nothing is lost or invented, and that every failure is
//! one an outage causes ([`assert_outage_conforms`]).
//!
//! A read timeout is measured on a wall clock that a busy machine can
//! stop: a run whose only departure from the plan is extra `timeout`s goes
//! once more, with more patience ([`assert_timed_run_conforms`]).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::cli::Settings;
use crate::faults::FaultPlan;
use crate::harness::{Execution, execute};
use crate::latency::LatencyModel;
use crate::outage::Outage;
use crate::outcome::ErrorKind;
use crate::protocol::Phases;
use crate::report::Report;
use crate::stage::Stage;
use crate::store::{Lane, Row};

/// The first two items that overlap on one lane, if any. A lane is one
/// connection, worker or fiber, which carries one item at a time: an item
/// that starts before the previous one on its lane has finished is a
/// stage stamping a time too late (or too early), and the timeline's trace
/// format shows it as two slices on one track that overlap, which a trace
/// viewer such as Perfetto drops.
pub fn overlap_on_a_lane(rows: &[Row]) -> Option<String> {
    let mut by_lane: BTreeMap<Lane, Vec<&Row>> = BTreeMap::new();
    for row in rows {
        by_lane.entry(row.lane).or_default().push(row);
    }
    by_lane.into_iter().find_map(|(lane, mut rows)| {
        rows.sort_by_key(|row| (row.started_us, row.finished_us));
        rows.windows(2).find_map(|pair| {
            let (before, after) = (pair[0], pair[1]);
            (after.started_us < before.finished_us).then(|| {
                format!(
                    "on lane {}, item {} starts at {} us, before item {} ends at {} us",
                    lane.0, after.id, after.started_us, before.id, before.finished_us
                )
            })
        })
    })
}

/// Small, fast settings for tests: 60 items over 4 connections at 1 ms.
pub fn quick_settings() -> Settings {
    Settings {
        items: 60,
        conns: 4,
        latency: LatencyModel::Fixed(Duration::from_millis(1)),
        ..Settings::default()
    }
}

/// Runs `stage` with `settings` and panics, with the report, unless nothing
/// was lost or wrong and every failure is one the server injected.
#[track_caller]
pub fn assert_run_conforms(stage: &dyn Stage, settings: &Settings) -> Execution {
    let execution = match execute(stage, settings) {
        Ok(execution) => execution,
        Err(error) => panic!("{} could not run {settings:?}: {error}", stage.name()),
    };
    check_conforms(stage, settings, execution)
}

#[track_caller]
fn check_conforms(stage: &dyn Stage, settings: &Settings, execution: Execution) -> Execution {
    let report = &execution.report;
    let context = || format!("{} with {settings:?}:\n{report}", stage.name());
    assert_eq!(report.lost, 0, "lost items: {}", context());
    assert_eq!(report.wrong, 0, "wrong rows: {}", context());
    assert!(report.problems.is_empty(), "problems: {}", context());
    assert_eq!(report.ok + report.failed, report.items, "{}", context());
    // A stage written right gives no warning under faults: a warning here
    // is a lint that cries wolf, or a loop that blocks or spins.
    assert!(report.lints.is_empty(), "warnings: {}", context());
    if let Some(overlap) = overlap_on_a_lane(&execution.rows) {
        panic!("{overlap}: {}", context());
    }
    if let Some(expected) = &report.expected_errors {
        assert_eq!(
            &report.errors,
            expected,
            "failures differ from the injected faults: {}",
            context()
        );
    }
    execution
}

/// How much longer the second chance waits than the read timeout that
/// counted replies late ([`assert_timed_run_conforms`]).
pub const PATIENCE: u32 = 10;

/// [`assert_run_conforms`] for a run with a read timeout, on a machine that
/// may be busy.
///
/// A read timeout is a wall-clock promise, and a test cannot keep the
/// machine quiet: when the hypervisor or a neighbouring build takes both
/// cores for longer than the timeout, a reply the server sent promptly is
/// read late and counts as `timeout`. So when the run's only departure from
/// the server's faults is *more* timeouts (each taken from an outcome the
/// server meant: an `ok`, a `nak`...), the same seeded run goes again with
/// a read timeout [`PATIENCE`] times longer (at least a second), says so on
/// stderr, and must then match exactly. Anything else (a lost or wrong
/// item, a failure of another kind, *fewer* timeouts) fails at once: a
/// stage that misses its wakeups or misreads its replies does so again with
/// more patience.
#[track_caller]
pub fn assert_timed_run_conforms(stage: &dyn Stage, settings: &Settings) -> Execution {
    let execution = match execute(stage, settings) {
        Ok(execution) => execution,
        Err(error) => panic!("{} could not run {settings:?}: {error}", stage.name()),
    };
    let (Some(limit), Some(late)) = (settings.read_timeout, late_replies(&execution.report)) else {
        return check_conforms(stage, settings, execution);
    };
    let patient = Settings {
        read_timeout: Some(patient(limit)),
        ..settings.clone()
    };
    announce(&format!(
        "conformance: {} read {late} more replies late than the server delayed, with a {limit:?} \
         read timeout (a busy machine); the same run again with {:?}:\n{}",
        stage.name(),
        patient.read_timeout.unwrap_or(limit),
        execution.report
    ));
    assert_run_conforms(stage, &patient)
}

/// Says that a second chance was taken, on the process's standard error
/// itself: `eprintln!` in a test is captured and shown only if the test
/// fails, and a second chance taken by a test that then passes belongs in
/// the log all the same (a stage that needs one often is worth a look).
pub fn announce(message: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{message}");
}

/// The second chance's read timeout after `limit` read replies late.
pub fn patient(limit: Duration) -> Duration {
    (limit * PATIENCE).max(Duration::from_secs(1))
}

/// How many more `timeout`s the report counts than the server injected, if
/// that is its only departure from the plan: every other kind at most as
/// many as injected (a late reply takes its item from the kind the server
/// meant), and nothing lost, wrong or amiss. `None` for any other report.
pub fn late_replies(report: &Report) -> Option<u64> {
    let expected = report.expected_errors.as_ref()?;
    let timeout = ErrorKind::Timeout.as_str();
    let count = |errors: &BTreeMap<String, u64>, kind: &str| errors.get(kind).copied().unwrap_or(0);
    let extra = count(&report.errors, timeout).checked_sub(count(expected, timeout))?;
    let sound = report.lost == 0
        && report.wrong == 0
        && report.problems.is_empty()
        && report.ok + report.failed == report.items
        && report
            .errors
            .iter()
            .all(|(kind, &n)| kind == timeout || n <= count(expected, kind));
    (extra > 0 && sound).then_some(extra)
}

/// The failures an outage can cause: a connect refused, a connection reset,
/// and what a client with a pool or a timer makes of them.
pub const OUTAGE_KINDS: [ErrorKind; 4] = [
    ErrorKind::Refused,
    ErrorKind::Closed,
    ErrorKind::Timeout,
    ErrorKind::PoolTimeout,
];

/// Runs `stage` through an outage window and panics, with the report,
/// unless nothing was lost or wrong, every failure is one an outage causes
/// ([`OUTAGE_KINDS`]), and the run had no problem but, perhaps, that no
/// item reached the server: a stage that starts late on a loaded machine
/// meets the outage with its first item, and one without a backoff
/// spends the rest of the list on refused connects within the window.
#[track_caller]
pub fn assert_outage_conforms(stage: &dyn Stage, settings: &Settings) -> Execution {
    let execution = match execute(stage, settings) {
        Ok(execution) => execution,
        Err(error) => panic!("{} could not run {settings:?}: {error}", stage.name()),
    };
    let report = &execution.report;
    let context = || format!("{} with {settings:?}:\n{report}", stage.name());
    assert_eq!(report.lost, 0, "lost items: {}", context());
    assert_eq!(report.wrong, 0, "wrong rows: {}", context());
    let allowed = usize::from(report.reached_no_server());
    assert!(report.problems.len() <= allowed, "problems: {}", context());
    assert!(report.lints.is_empty(), "warnings: {}", context());
    for kind in report.errors.keys() {
        assert!(
            OUTAGE_KINDS.iter().any(|k| k.as_str() == kind),
            "a failure no outage causes ({kind}): {}",
            context()
        );
    }
    execution
}

/// The standard battery: both request shapes, no faults and every fault a
/// client can see without a read timeout (plus `hang` and `blackhole` when
/// the stage supports one), over three seeds; a heavy-tailed latency; an
/// outage.
#[track_caller]
pub fn assert_conforms(stage: &dyn Stage) {
    let mut faults = "nak=0.1,ko=0.1,drop=0.05,garbage=0.05,trickle=0.1,reset=0.05".to_owned();
    let mut read_timeout = None;
    if stage.read_timeout().is_enforced() {
        faults.push_str(",hang=0.05,blackhole=0.05");
        read_timeout = Some(Duration::from_millis(100));
    }
    let faults: FaultPlan = faults.parse().expect("the battery's fault spec is valid");
    for phases in [Phases::One, Phases::Two] {
        let clean = Settings {
            phases,
            ..quick_settings()
        };
        let execution = assert_run_conforms(stage, &clean);
        assert_eq!(
            execution.report.ok, execution.report.items,
            "no faults, all ok"
        );
        for seed in 1..=3 {
            let faulty = Settings {
                phases,
                seed,
                faults,
                read_timeout,
                ..quick_settings()
            };
            assert_timed_run_conforms(stage, &faulty);
        }
        // At least 500 us, one line in a thousand 100 times that: no read
        // timeout, so every item must succeed, however long its tail.
        let heavy = Settings {
            phases,
            latency: LatencyModel::Pareto {
                scale: Duration::from_micros(500),
                shape: 1.5,
            },
            ..quick_settings()
        };
        let execution = assert_run_conforms(stage, &heavy);
        assert_eq!(
            execution.report.ok, execution.report.items,
            "pareto, all ok"
        );
        // Down from 20 ms to 50 ms after the server starts, in a run of
        // about 100 ms: before, during and after.
        let outage = Settings {
            phases,
            items: 100,
            latency: LatencyModel::Fixed(Duration::from_millis(2)),
            outage: Some(Outage {
                start: Duration::from_millis(20),
                length: Duration::from_millis(30),
            }),
            read_timeout,
            ..quick_settings()
        };
        assert_outage_conforms(stage, &outage);
    }
}
