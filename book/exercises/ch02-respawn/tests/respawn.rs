//! The supervisor, run in this test's own single-threaded process.
//!
//! `harness = false` (see Cargo.toml): a process with threads must not
//! fork, and libtest runs each test on a thread. The deadline is `alarm(2)`
//! (unhandled, `SIGALRM` ends the process), not a watchdog thread.
//!
//! Each promise is a check of its own, printed as libtest prints a test
//! (`test NAME ... ok` or `FAILED`), and a failed check does not stop the
//! ones after it: different mistakes fail different checks, so the list
//! of failures says which idea went wrong.

// When the checks fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch02-respawn");

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ch02_respawn::{Respawning, supervise};
use fork::processes::{Child, spawn_worker};
use fork::{CrashPlan, WorkerId, partition};
use nix::errno::Errno;
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::{Pid, alarm};
use testbed::conformance::quick_settings;
use testbed::harness::{Execution, execute};
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

/// The checks that failed, by name.
#[derive(Default)]
struct Checks {
    failed: Vec<&'static str>,
}

impl Checks {
    /// Runs one check, libtest-style: its line says `ok` or `FAILED`
    /// (the assertion's message goes to stderr, as a test's does).
    fn check(&mut self, name: &'static str, body: impl FnOnce()) {
        if catch_unwind(AssertUnwindSafe(body)).is_ok() {
            println!("test {name} ... ok");
        } else {
            println!("test {name} ... FAILED");
            self.fail(name);
        }
    }

    /// Notes a failed check, here and for the hints: the checks run on
    /// the main thread, so no thread's name says which one failed.
    fn fail(&mut self, name: &'static str) {
        self.failed.push(name);
        testbed::hints::failed(name);
    }

    /// Runs a stage; if the run itself fails, every check that needed it
    /// fails with it.
    fn run(&mut self, stage: &impl Stage, needed_by: &[&'static str]) -> Option<Execution> {
        match execute(stage, &quick_settings()) {
            Ok(execution) => Some(execution),
            Err(e) => {
                for &name in needed_by {
                    eprintln!("{name}: the run did not finish: {e}");
                    println!("test {name} ... FAILED");
                    self.fail(name);
                }
                None
            }
        }
    }
}

/// Waits for every child an earlier run may have left, so that the
/// reaping check below judges only its own run's children.
fn reap_leftovers() {
    while waitpid(None, None).is_ok() {}
}

fn main() {
    alarm::set(DEADLINE_SECS);
    let mut checks = Checks::default();
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
    const RESPAWNED: [&str; 5] = [
        "a_replacement_finishes_the_dead_workers_items",
        "exactly_one_replacement_is_forked",
        "a_clean_exit_is_not_a_death",
        "the_replacement_gets_only_the_items_without_a_row",
        "the_replacement_keeps_the_dead_workers_lane",
    ];
    if let Some(execution) = checks.run(&respawned, &RESPAWNED) {
        let report = &execution.report;
        checks.check(RESPAWNED[0], || {
            assert_eq!(
                (report.ok, report.lost, report.wrong),
                (60, 0, 0),
                "with one respawn allowed, the replacement should finish the dead worker's items, \
                 and the supervisor wait for it: {report}"
            );
        });
        checks.check(RESPAWNED[1], || {
            // Four workers, plus the replacement's own database connection.
            assert_eq!(
                report.db_connections, 5,
                "four workers and exactly one replacement should have opened the database: {report}"
            );
        });
        checks.check(RESPAWNED[2], || {
            assert_eq!(
                report.notes.len(),
                1,
                "one death, so one note (a clean exit is not a death): {report}"
            );
        });
        checks.check(RESPAWNED[3], || {
            let note = report
                .notes
                .iter()
                .find(|n| n.starts_with("worker 1 (pid "));
            assert!(
                note.is_some_and(|n| n.ends_with("killed by SIGKILL: respawned for 12 items")),
                "the note on worker 1 should say the replacement got only the 12 items without a \
                 row, not the whole partition: {report}"
            );
        });
        checks.check(RESPAWNED[4], || {
            let lane_1 = execution.rows.iter().filter(|row| row.lane.0 == 1).count();
            assert_eq!(
                lane_1, 15,
                "the replacement should keep the dead worker's number, so its lane holds all 15 items"
            );
        });
    }
    reap_leftovers();

    let no_respawns = Respawning {
        crash,
        max_respawns: 0,
    };
    const GIVES_UP: [&str; 3] = [
        "out_of_respawns_the_unfinished_items_are_lost",
        "the_note_counts_the_items_given_up_on",
        "giving_up_still_waits_for_every_worker",
    ];
    if let Some(execution) = checks.run(&no_respawns, &GIVES_UP) {
        let report = &execution.report;
        checks.check(GIVES_UP[0], || {
            assert_eq!(
                (report.lost, report.db_connections),
                (12, 4),
                "with no respawn allowed, no replacement should be forked (4 database connections) \
                 and the dead worker's 12 unfinished items lost: {report}"
            );
        });
        checks.check(GIVES_UP[1], || {
            assert!(
                report
                    .notes
                    .first()
                    .is_some_and(|n| n.ends_with("gave up on 12 items")),
                "the note should say the supervisor gave up on the 12 items without a row: {report}"
            );
        });
        // Giving up on one child's items is no reason to stop waiting for
        // the others: when the run ends, none is left unreaped.
        checks.check(GIVES_UP[2], || {
            let unreaped = waitpid(None, Some(WaitPidFlag::WNOHANG));
            assert_eq!(
                unreaped,
                Err(Errno::ECHILD),
                "every worker should have been waited for by the time the run ends, but one is \
                 still there: {unreaped:?}"
            );
        });
    }
    reap_leftovers();

    let clean = Respawning::default();
    const CLEAN: [&str; 1] = ["no_death_no_note"];
    if let Some(execution) = checks.run(&clean, &CLEAN) {
        checks.check(CLEAN[0], || {
            let report = &execution.report;
            assert!(
                report.notes.is_empty() && report.ok == 60,
                "children that exit 0 are not deaths: every item done and no note: {report}"
            );
        });
    }
    reap_leftovers();

    const EXIT_CODE: [&str; 1] = ["an_exit_code_is_a_death_too"];
    if let Some(execution) = checks.run(&ExitsOne, &EXIT_CODE) {
        checks.check(EXIT_CODE[0], || {
            let report = &execution.report;
            assert_eq!(
                (report.ok, report.lost),
                (60, 0),
                "a worker that exits 1 is dead too (only exit 0 is a clean end): its 15 items need \
                 a replacement: {report}"
            );
            assert!(
                report.notes.first().is_some_and(|n| n
                    .ends_with("exited 1 (its results database failed): respawned for 15 items")),
                "the note should say how the worker ended and what the replacement got: {report}"
            );
        });
    }
    alarm::cancel();
    if !checks.failed.is_empty() {
        eprintln!("\nfailures:\n    {}", checks.failed.join("\n    "));
        std::process::exit(101);
    }
}
