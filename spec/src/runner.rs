//! Running a scenario on a runtime: in a thread of its own, with a time
//! limit, so that a runtime that loses a wake-up fails instead of hanging.

use std::sync::Arc;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use crate::Scenario;
use crate::trace::{Recorder, Trace, check, side_by_side};

/// How long one run may take before it counts as hung. Every scenario
/// takes milliseconds; this is for a runtime that never wakes a task.
pub const RUN_LIMIT: Duration = Duration::from_secs(5);

/// A runtime the suite can run scenarios on.
pub trait Runtime: Send + Sync {
    /// The name the table prints and scenarios' `differs` use.
    fn name(&self) -> &'static str;
    /// Does it run tasks on several threads at once?
    fn parallel(&self) -> bool {
        false
    }
    /// The seed its ready tasks' order is drawn from, if it is not the
    /// order they were woken in.
    fn seed(&self) -> Option<u64> {
        None
    }
    /// Is the order of two tasks' steps the order they were woken in? Not
    /// where tasks run in parallel, nor where a seed shuffles them: there,
    /// the trace's [`one_thread_order`](crate::one_thread_order) groups
    /// may come in any order.
    fn unordered(&self) -> bool {
        self.parallel() || self.seed().is_some()
    }
    /// Runs `scenario`'s script to its end, recording into `recorder`.
    /// `Err` says why the runtime could not even start.
    fn run(&self, scenario: &Scenario, recorder: Arc<Recorder>) -> Result<(), String>;
}

/// The verdict of one scenario on one runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The trace matched.
    Pass,
    /// The trace did not match: why, and both traces side by side.
    Fail {
        /// The first departure.
        why: String,
        /// Expected | actual.
        traces: String,
    },
    /// The runtime cannot express this scenario, for this reason.
    Differs(&'static str),
}

/// Runs `scenario` on `runtime` and compares its trace.
pub fn verdict(runtime: &Arc<dyn Runtime>, scenario: &Scenario) -> Verdict {
    run(runtime, scenario).0
}

/// Runs `scenario` on `runtime`: the verdict, and the trace the run
/// recorded (empty where the runtime differs, and so did not run it).
pub fn run(runtime: &Arc<dyn Runtime>, scenario: &Scenario) -> (Verdict, Trace) {
    if let Some(why) = scenario.differs_on(runtime.name()) {
        return (Verdict::Differs(why), Trace::default());
    }
    let unordered = runtime.unordered();
    let fail = |why: String, trace: Trace| {
        let traces = side_by_side(&scenario.expect, &trace, unordered);
        (Verdict::Fail { why, traces }, trace)
    };
    match run_bounded(runtime, scenario) {
        Ok(trace) => match check(&scenario.expect, &trace, unordered) {
            Ok(()) => (Verdict::Pass, trace),
            Err(why) => fail(why, trace),
        },
        Err((why, trace)) => fail(why, trace),
    }
}

/// Runs the scenario in a thread of its own; a run that does not end
/// within [`RUN_LIMIT`], or that panics, is an `Err` with what it
/// recorded so far side by side with the expectation.
fn run_bounded(runtime: &Arc<dyn Runtime>, scenario: &Scenario) -> Result<Trace, (String, Trace)> {
    let recorder = Arc::new(Recorder::new());
    let (done_tx, done_rx) = mpsc::channel();
    let (rt, sc, rec) = (runtime.clone(), scenario.clone(), recorder.clone());
    let spawned = thread::Builder::new()
        .name(format!("spec {}", scenario.name))
        .spawn(move || {
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt.run(&sc, rec)));
            let _ = done_tx.send(result);
        });
    if let Err(e) = spawned {
        return Err((format!("could not start a thread: {e}"), Trace::default()));
    }
    let failed = |why: String| Err((why, recorder.trace()));
    match done_rx.recv_timeout(RUN_LIMIT) {
        Ok(Ok(Ok(()))) => Ok(recorder.trace()),
        Ok(Ok(Err(why))) => failed(format!("the runtime failed: {why}")),
        Ok(Err(_)) => failed("the run panicked out of the runtime".to_owned()),
        // The thread is left behind: a hung runtime cannot be stopped from
        // outside. Its recorder is no longer read.
        Err(_) => failed(format!("no end within {} s", RUN_LIMIT.as_secs())),
    }
}
