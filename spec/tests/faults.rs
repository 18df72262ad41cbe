//! The suite against a deliberately broken runtime: with no fault it
//! passes every scenario; each scenario is failed by at least one fault.

mod broken;

use std::sync::Arc;

use broken::{Broken, Fault};
use runtime_spec::{Runtime, Verdict, all, verdict};

/// For each scenario, a fault it catches.
const CATCHES: &[(&str, Fault)] = &[
    ("sleeps-end-in-deadline-order", Fault::EarlyTimer),
    ("sleep-is-never-early", Fault::EarlyTimer),
    ("sleeps-add-up", Fault::EarlyTimer),
    ("zero-sleep-yields", Fault::ZeroSleepReady),
    ("dropped-sleep-leaves-no-timer", Fault::DroppedSleepFires),
    ("ten-thousand-timers-in-order", Fault::EarlyTimer),
    ("same-deadline-all-fire", Fault::EarlyTimer),
    ("timers-of-several-tasks-interleave", Fault::EarlyTimer),
    ("wake-from-thread-during-poll", Fault::LostWake),
    ("wake-twice-during-one-poll", Fault::LostWake),
    ("wake-from-thread-twice-in-a-row", Fault::LostWake),
    ("wake-after-finish-is-harmless", Fault::PollFinished),
    ("waker-cloned-and-dropped-on-thread", Fault::LostWake),
    ("wake-from-thread-in-spawned-task", Fault::LostWake),
    ("many-tasks-woken-from-threads", Fault::LostWake),
    ("blocked-reader-woken-by-write", Fault::WrongInterest),
    ("partial-line-waits-for-the-rest", Fault::NoReregister),
    ("two-lines-in-one-write", Fault::DropsBufferedLines),
    ("reader-parks-again-after-a-read", Fault::NoReregister),
    ("peer-closes", Fault::IgnoreHangUp),
    ("peer-closes-after-data", Fault::EofBeforeData),
    ("peer-resets", Fault::ResetIsEof),
    ("descriptor-reused-after-close", Fault::ForgetReusedFd),
    ("reader-and-timer-together", Fault::WrongInterest),
    ("spawned-task-runs-and-joins", Fault::SpawnNotScheduled),
    ("spawn-from-inside-a-task", Fault::SpawnNotScheduled),
    ("spawn-does-not-run-inline", Fault::SpawnRunsInline),
    ("join-waits-for-a-sleeping-task", Fault::EarlyTimer),
    ("join-after-the-task-finished", Fault::JoinMissesEarlyResult),
    ("spawned-tasks-start-in-spawn-order", Fault::LifoReady),
    ("abort-a-sleeping-task", Fault::AbortIgnored),
    ("task-aborts-itself", Fault::AbortIgnored),
    (
        "abort-after-finish-keeps-the-result",
        Fault::AbortClobbersResult,
    ),
    ("panic-is-contained-and-reported", Fault::PanicEscapes),
    ("panic-runs-the-destructors", Fault::PanicEscapes),
    ("detached-task-runs-on", Fault::DetachCancels),
    (
        "dropping-the-runtime-drops-pending-tasks",
        Fault::LeakOnDrop,
    ),
    ("yielding-tasks-do-not-starve-timers", Fault::NoFairness),
    ("yielding-tasks-do-not-starve-io", Fault::NoFairness),
    ("yield-defers-until-io-was-looked-at", Fault::YieldNoDefer),
    ("yield-lets-the-others-run", Fault::LifoReady),
    ("yielding-task-and-sleeper-share", Fault::NoFairness),
    ("semaphore-hands-over-in-fifo-order", Fault::LifoSemaphore),
    ("lock-hands-over-in-fifo-order", Fault::LifoSemaphore),
    ("semaphore-waiter-woken-by-release", Fault::ReleaseNoWake),
    (
        "cancelled-waiter-passes-its-turn-on",
        Fault::CancelledWaiterKeepsTurn,
    ),
];

#[test]
fn without_faults_the_broken_runtime_passes_every_scenario() {
    runtime_spec::quiet_scenario_panics();
    let runtime: Arc<dyn Runtime> = Arc::new(Broken(None));
    let mut failures = String::new();
    for scenario in all() {
        if let Verdict::Fail { why, traces } = verdict(&runtime, &scenario) {
            failures += &format!("{}: {why}\n{traces}\n", scenario.name);
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

#[test]
fn every_scenario_catches_a_fault() {
    runtime_spec::quiet_scenario_panics();
    let mut missed = String::new();
    for scenario in all() {
        let Some((_, fault)) = CATCHES.iter().find(|(name, _)| *name == scenario.name) else {
            missed += &format!("{}: no fault listed\n", scenario.name);
            continue;
        };
        let runtime: Arc<dyn Runtime> = Arc::new(Broken(Some(*fault)));
        match verdict(&runtime, &scenario) {
            Verdict::Fail { why, traces } => {
                if std::env::var_os("SPEC_SHOW_FAULTS").is_some() {
                    eprintln!("{} under {fault:?}: {why}\n{traces}", scenario.name);
                }
            }
            other => missed += &format!("{} passes under {fault:?}: {other:?}\n", scenario.name),
        }
    }
    assert!(missed.is_empty(), "{missed}");
}
