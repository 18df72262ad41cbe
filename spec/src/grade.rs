//! Grading a runtime a learner wrote (chapter 8's capstone, `ch08-runtime`)
//! with the suite's own scenarios, stage by stage.
//!
//! A learner implements [`Learner`], the smallest interface the scenarios
//! need: `block_on`, spawn, join, abort, a sleep, a yield and "wait until
//! this socket is readable". Everything else a scenario uses (reading a
//! line, a semaphore, a lock) is built here on top of it, from wakers
//! (`grade/adapter.rs`, `grade/fifo.rs`), so the learner's part stays the
//! lesson: tasks, a ready queue, wakers, timers and a reactor.
//!
//! The scenarios are grouped into seven stages, one feature each, in the
//! order a runtime is built (`grade/stages.rs`). [`stage`] runs a stage only
//! once every stage before it passes, and a failure names the stage, the
//! scenario and both traces side by side.

mod adapter;
mod fifo;
mod stages;

use std::any::TypeId;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::os::fd::BorrowedFd;
use std::sync::{Arc, Mutex, Once, PoisonError};
use std::time::Instant;

pub use adapter::{Graded, LearnerRt, YOURS};
pub use stages::{Check, Root, STAGES, Stage, stages};

use crate::runner::{Runtime, Verdict, verdict};

/// How a joined task ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joined {
    /// Its future returned `Ready`.
    Finished,
    /// Its future panicked; the panic went no further than the task.
    Panicked,
    /// It was aborted (or the runtime dropped it) before it finished.
    Cancelled,
}

/// What a learner's runtime gives the suite: everything a scenario needs
/// that only a runtime can provide.
pub trait Learner: Sized + 'static {
    /// What tasks keep to reach the runtime (spawn, sleep, wait for a
    /// socket): cheap to clone, and used on the runtime's own thread only.
    type Spawner: Clone + 'static;
    /// A spawned task's handle. Dropping it lets the task run on.
    type Task: 'static;

    /// A new runtime, with nothing spawned.
    ///
    /// # Errors
    ///
    /// The operating system refused a descriptor (the selector, a pipe).
    fn new() -> io::Result<Self>;
    /// A spawner for this runtime.
    fn spawner(&self) -> Self::Spawner;
    /// Runs `future` to its end on this thread, and the tasks it spawns
    /// meanwhile; returns when `future` does.
    fn block_on(&self, future: impl Future<Output = ()>);
    /// Starts a task; it first runs once the spawner's task has let go.
    fn spawn(spawner: &Self::Spawner, future: impl Future<Output = ()> + 'static) -> Self::Task;
    /// Waits for the task to end, and says how it did.
    fn join(task: &Self::Task) -> impl Future<Output = Joined>;
    /// Cancels the task: its future is dropped (its destructors run) and
    /// it is never polled again. A task that has already ended keeps its
    /// result.
    fn abort(task: &Self::Task);
    /// Ready at `deadline`, never before.
    fn sleep_until(spawner: &Self::Spawner, deadline: Instant) -> impl Future<Output = ()>;
    /// Pending once: lets the other ready tasks, and the I/O and timers
    /// that are due, go first.
    fn yield_now(spawner: &Self::Spawner) -> impl Future<Output = ()>;
    /// Ready when `fd` has something to read (data, an end of stream, an
    /// error).
    fn readable<'a>(spawner: &Self::Spawner, fd: BorrowedFd<'a>) -> impl Future<Output = ()> + 'a;
}

/// Each stage's verdict, per learner type: a test of stage 5 and a test
/// of stage 3 running at once share the runs of stages 1 to 3. The lock
/// is held while a stage runs, so the timing of one run never competes
/// with another's.
static VERDICTS: Mutex<Option<Verdicts>> = Mutex::new(None);

/// A stage's verdict, by learner type and stage number.
type Verdicts = HashMap<(TypeId, usize), Result<String, String>>;

/// Runs stages 1 to `number` on `L`, each once per process, and says how
/// stage `number` went: `Ok` with a summary line, or `Err` naming the first
/// stage that fails, its scenario and both traces.
///
/// # Panics
///
/// If `number` is not a stage (1 to 7).
pub fn stage<L: Learner>(number: usize) -> Result<String, String> {
    static QUIET: Once = Once::new();
    QUIET.call_once(crate::table::quiet_scenario_panics);
    let all = stages();
    assert!(
        (1..=all.len()).contains(&number),
        "there are stages 1 to {}, not {number}",
        all.len()
    );
    let mut verdicts = VERDICTS.lock().unwrap_or_else(PoisonError::into_inner);
    let verdicts = verdicts.get_or_insert_with(HashMap::new);
    for earlier in &all[..number - 1] {
        let result = verdicts
            .entry((TypeId::of::<L>(), earlier.number))
            .or_insert_with(|| run_stage::<L>(earlier));
        if let Err(why) = result {
            return Err(format!(
                "stage {number} ({}) waits for stage {} ({}), which fails first:\n{why}",
                all[number - 1].name,
                earlier.number,
                earlier.name
            ));
        }
    }
    let this = &all[number - 1];
    verdicts
        .entry((TypeId::of::<L>(), number))
        .or_insert_with(|| run_stage::<L>(this))
        .clone()
}

/// Runs one stage's scenarios in order; stops at the first failure.
fn run_stage<L: Learner>(stage: &Stage) -> Result<String, String> {
    for check in &stage.checks {
        let runtime: Arc<dyn Runtime> = Arc::new(Graded::<L>::new(
            check.quiet,
            check.root,
            check.most_root_polls,
        ));
        let scenario = &check.scenario;
        if let Verdict::Fail { why, traces } = verdict(&runtime, scenario) {
            let passed = match stage.number {
                1 => "No stage passes yet.".to_owned(),
                2 => "Stage 1 passes.".to_owned(),
                n => format!("Stages 1 to {} pass.", n - 1),
            };
            return Err(format!(
                "stage {} ({}) fails at `{}`: {why}\n{traces}{passed} {}",
                stage.number, stage.name, scenario.name, stage.hint
            ));
        }
    }
    Ok(format!(
        "stage {} ({}): {} scenarios pass",
        stage.number,
        stage.name,
        stage.checks.len()
    ))
}
