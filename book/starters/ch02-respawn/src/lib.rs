//! Chapter 2, exercise 2: respawn a dead child for the items it left.
//!
//! 02-fork reports a dead child's unfinished items as lost, and the run
//! fails. That is honest, but a supervisor can do better: it knows which
//! partition the dead child had, and the database knows which of those
//! items have a row. Fork a fresh worker for the rest, and nothing is lost.
//! (This is what AnyEvent::Task does when a worker dies: its client forks
//! a new one. Erlang calls the idea a supervisor.)
//!
//! [`Respawning`] is 02-fork's process variant with one change: instead of
//! only waiting for its children, it *supervises* them ([`supervise`]).
//! It reuses the stage's pieces: `fork::processes::spawn_worker` forks a
//! worker, `fork::processes::wait_for` waits for one, and
//! `fork::unfinished::unrecorded` asks the database which items still have
//! no row (through a connection it closes again, so nothing SQLite crosses
//! the next fork).
//!
//! The children are waited for in the order they were started, so a child
//! that dies early is noticed only when the ones before it have ended.
//! That is simple and correct, and it delays the replacement; waiting for
//! whichever child ends first (`waitpid` on a process group) is the better
//! supervisor, left for later.
//!
//! Worker 1 kills itself after recording 3 of its 5 items; one replacement
//! finishes the other 2, and nothing is lost:
//!
//! ```
//! use ch02_respawn::Respawning;
//! use fork::{CrashPlan, WorkerId};
//! use testbed::cli::Settings;
//! use testbed::harness::execute;
//!
//! let crash = Some(CrashPlan { worker: WorkerId::new(1), after: 3 });
//! let stage = Respawning { crash, max_respawns: 1 };
//! let latency = "1ms".parse().expect("a latency");
//! let settings = Settings { items: 20, conns: 4, latency, ..Settings::default() };
//! let report = execute(&stage, &settings)?.report;
//! assert_eq!((report.ok, report.lost, report.notes.len()), (20, 0, 1), "every item done, none lost, and a note for the crash");
//! assert!(report.notes[0].ends_with("respawned for 2 items"), "{}", report.notes[0]);
//! # Ok::<(), testbed::harness::HarnessError>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch02-respawn");

use std::collections::VecDeque;

use fork::processes::{Child, EXIT_DONE, describe, spawn_worker, wait_for};
use fork::unfinished::unrecorded;
use fork::{CrashPlan, WorkerId, partition};
use nix::sys::wait::WaitStatus;
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::workload::Item;

/// 02-fork's worker processes, plus a supervisor that replaces dead ones.
#[derive(Debug, Clone, Copy, Default)]
pub struct Respawning {
    /// Make one of the *first* children die (replacements never crash).
    pub crash: Option<CrashPlan>,
    /// How many replacements may be forked in all before giving up.
    pub max_respawns: usize,
}

impl Stage for Respawning {
    fn name(&self) -> &'static str {
        "fork-respawn"
    }

    fn needs_db_file(&self) -> bool {
        true
    }

    fn forks(&self) -> bool {
        true
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let workers = scenario.conns.min(scenario.items.len());
        let partitions = partition(scenario.items.iter(), workers.max(1));
        let mut children = VecDeque::new();
        for (k, items) in partitions.into_iter().enumerate() {
            let worker = WorkerId::new(k);
            let crash_after = CrashPlan::for_worker(self.crash, worker);
            let pid = spawn_worker(scenario, worker, &items, crash_after)?;
            children.push_back((Child { worker, pid }, items));
        }
        let mut stats = RunStats::new(workers);
        for note in supervise(scenario, children, self.max_respawns)? {
            stats.note(note);
        }
        Ok(stats)
    }
}

// ANCHOR: exercise
/// Waits for every child in `children`, in order. When one ends other than
/// with `exit 0`, finds the items of its partition that have no row and,
/// while fewer than `max_respawns` replacements have been forked, forks a
/// replacement for them (same worker number, no crash), which is then
/// waited for like the others. Returns one note per death: `worker 1
/// (pid 4242) killed by SIGKILL: respawned for 12 items`, or `...: gave
/// up on 12 items` once the respawns are used up.
pub fn supervise(
    scenario: &Scenario,
    mut children: VecDeque<(Child, Vec<&Item>)>,
    max_respawns: usize,
) -> Result<Vec<String>, StageError> {
    // TODO: when a child did not exit cleanly, which of its items still need a worker, and what if the replacements keep dying?
    todo!("when a child did not exit cleanly, which of its items still need a worker, and what if the replacements keep dying?")
}
// ANCHOR_END: exercise
