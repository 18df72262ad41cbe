//! The supervisor, run in this test's own single-threaded process.
//!
//! `harness = false` (see Cargo.toml): a process with threads must not
//! fork, and libtest runs each test on a thread. The deadline is `alarm(2)`
//! (unhandled, `SIGALRM` ends the process), not a watchdog thread.

use std::collections::VecDeque;

use ch02_respawn::{Respawning, supervise};
use fork::processes::{Child, spawn_worker};
use fork::{CrashPlan, WorkerId, partition};
use nix::errno::Errno;
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::{Pid, alarm};
use testbed::conformance::quick_settings;
use testbed::harness::execute;
use testbed::stage::{RunStats, Scenario, Stage, StageError};

/// 02-fork's workers, except worker 1, whose process exits 1 at once
/// without recording anything: a death by exit code, not by a signal, as
/// a worker whose database failed would end.
struct ExitsOne;

impl Stage for ExitsOne {
    fn name(&self) -> &'static str {
        "fork-exits-one"
    }

    fn needs_db_file(&self) -> bool {
        true
    }

    fn forks(&self) -> bool {
        true
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let mut children = VecDeque::new();
        for (k, items) in partition(scenario.items.iter(), scenario.conns)
            .into_iter()
            .enumerate()
        {
            let worker = WorkerId::new(k);
            let pid = if k == 1 {
                let child = std::process::Command::new("sh")
                    .args(["-c", "exit 1"])
                    .spawn()
                    .map_err(StageError::from)?;
                Pid::from_raw(child.id() as i32)
            } else {
                spawn_worker(scenario, worker, &items, None)?
            };
            children.push_back((Child { worker, pid }, items));
        }
        let mut stats = RunStats::new(scenario.conns);
        for note in supervise(scenario, children, 1)? {
            stats.note(note);
        }
        Ok(stats)
    }
}

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
    // Giving up on one child's items is no reason to stop waiting for the
    // others: when the run ends, none is left unreaped.
    let unreaped = waitpid(None, Some(WaitPidFlag::WNOHANG));
    assert_eq!(
        unreaped,
        Err(Errno::ECHILD),
        "every worker should have been waited for by the time the run ends, but one is still there: {unreaped:?}"
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

    let execution = execute(&ExitsOne, &quick_settings()).expect("the run finishes");
    let report = &execution.report;
    assert_eq!(
        (report.ok, report.lost),
        (60, 0),
        "a worker that exits 1 is dead too (only exit 0 is a clean end): its 15 items need a replacement: {report}"
    );
    assert!(
        report.notes.first().is_some_and(
            |n| n.ends_with("exited 1 (its results database failed): respawned for 15 items")
        ),
        "the note should say how the worker ended and what the replacement got: {report}"
    );
    println!("test an_exit_code_is_a_death_too ... ok");
    alarm::cancel();
}
