//! The supervisor, run in this test's own single-threaded process.
//!
//! `harness = false` (see Cargo.toml): a process with threads must not
//! fork, and libtest runs each test on a thread. The deadline is `alarm(2)`
//! (unhandled, `SIGALRM` ends the process), not a watchdog thread.

use ch02_respawn::Respawning;
use fork::{CrashPlan, WorkerId};
use nix::unistd::alarm;
use testbed::conformance::quick_settings;
use testbed::harness::execute;

const DEADLINE_SECS: u32 = 60;

fn main() {
    alarm::set(DEADLINE_SECS);
    // 60 items over 4 workers; worker 1 (items 1, 5, ..., 57: 15 of them)
    // kills itself after recording 3.
    let crash = Some(CrashPlan {
        worker: WorkerId::new(1),
        after: 3,
    });

    let respawned = Respawning {
        crash,
        max_respawns: 1,
    };
    let execution = execute(&respawned, &quick_settings()).expect("the run finishes");
    let report = &execution.report;
    assert_eq!(
        (report.ok, report.lost, report.wrong),
        (60, 0, 0),
        "with one respawn allowed, the replacement should finish the dead worker's items: {report}"
    );
    // Four workers, plus the replacement's own database connection.
    assert_eq!(
        report.db_connections, 5,
        "four workers and exactly one replacement should have opened the database: {report}"
    );
    assert_eq!(
        report.notes.len(),
        1,
        "one death, so one note (a clean exit is not a death): {report}"
    );
    let note = &report.notes[0];
    assert!(
        note.starts_with("worker 1 (pid "),
        "the note should name the dead worker and its pid: {note}"
    );
    assert!(
        note.ends_with("killed by SIGKILL: respawned for 12 items"),
        "the replacement should get only the 12 items without a row, not the whole partition: {note}"
    );
    // The replacement kept the dead worker's lane.
    let lane_1 = execution.rows.iter().filter(|row| row.lane.0 == 1).count();
    assert_eq!(
        lane_1, 15,
        "the replacement should keep the dead worker's number, so its lane holds all 15 items"
    );
    println!("test respawned ... ok");

    let no_respawns = Respawning {
        crash,
        max_respawns: 0,
    };
    let execution = execute(&no_respawns, &quick_settings()).expect("the run finishes");
    let report = &execution.report;
    assert_eq!(
        report.lost, 12,
        "with no respawn allowed, the dead worker's 12 unfinished items should be lost: {report}"
    );
    assert!(
        report
            .notes
            .first()
            .is_some_and(|n| n.ends_with("gave up on 12 items")),
        "the note should say the supervisor gave up on the 12 items: {report}"
    );
    println!("test gives_up_when_out_of_respawns ... ok");

    let clean = Respawning::default();
    let execution = execute(&clean, &quick_settings()).expect("the run finishes");
    assert!(
        execution.report.notes.is_empty(),
        "children that exit 0 are not deaths, so no note: {}",
        execution.report
    );
    assert_eq!(
        execution.report.ok, 60,
        "a run without deaths should finish every item"
    );
    println!("test no_death_no_note ... ok");
    alarm::cancel();
}
