//! The seven stages: the suite's scenarios grouped by the one feature of a
//! runtime each needs last, in the order a runtime is built. A stage's
//! scenarios use only what its stage and the ones before it build, so a
//! learner can run stage 1 with nothing but a `block_on`.
//!
//! Some scenarios belong to the grade alone. Stage 1 has none of the
//! suite's (they all spawn, sleep, read or wake). Three, in stages 3, 4
//! and 5, also measure the thread's CPU time while it waits, so that a
//! loop that asks "ready yet?" over and over, instead of sleeping in the
//! selector, fails. Two have a root future of their own, for what no
//! script step says: stage 1's wakes itself through its waker (a step's
//! yield goes through the learner's `yield_now`, which need not use the
//! waker at once), and stage 5's is woken by another thread *while the
//! loop sleeps* (the script's wakes all come during a poll, when a loop
//! that never hears of a wake still finds the task queued).

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::thread;
use std::time::Duration;

use crate::scenarios::all;
use crate::script::Scenario;
use crate::script::Step::*;
use crate::trace::{Recorder, at_least, ev};

/// How many stages there are.
pub const STAGES: usize = 7;

/// One scenario of a stage, and how it is run.
#[derive(Debug, Clone)]
pub struct Check {
    /// The scenario: its name and expected trace (and its script, unless
    /// `root` replaces it).
    pub scenario: Scenario,
    /// Where set, the run's CPU time is measured too, and this names the
    /// wait in the busy-waiting message.
    pub quiet: Option<&'static str>,
    /// A root future of the grade's own, for what no script step can say.
    pub root: Option<Root>,
    /// Where set, the most times `block_on` may poll the script's root
    /// future: a `block_on` that polls it on every turn of the loop, woken
    /// or not, fails where other tasks make many turns.
    pub most_root_polls: Option<u64>,
}

/// Makes a root future that records into the recorder.
pub type Root = fn(Arc<Recorder>) -> Pin<Box<dyn Future<Output = ()>>>;

/// One stage and its checks.
#[derive(Debug, Clone)]
pub struct Stage {
    /// 1 to [`STAGES`].
    pub number: usize,
    /// What the stage builds.
    pub name: &'static str,
    /// Where to look when it fails.
    pub hint: &'static str,
    /// In the order they run.
    pub checks: Vec<Check>,
}

/// The suite's scenarios of each stage, by name.
const PLAN: [(&str, &str, &[&str]); STAGES] = [
    (
        "block_on",
        "Look at Runtime::new and block_on: does block_on poll the future again once its waker was called, and only then?",
        &[],
    ),
    (
        "spawn and join",
        "Look at spawn, the ready queue and the join handle: who wakes a joiner, and in which order do new tasks run?",
        &[
            "spawned-task-runs-and-joins",
            "spawn-from-inside-a-task",
            "spawn-does-not-run-inline",
            "spawned-tasks-start-in-spawn-order",
            "yield-lets-the-others-run",
            "panic-runs-the-destructors",
            "semaphore-hands-over-in-fifo-order",
            "lock-hands-over-in-fifo-order",
        ],
    ),
    (
        "timers",
        "Look at the timer heap and at how long the loop sleeps: is a sleep ever woken before its deadline, or never, or over and over?",
        &[
            "sleep-is-never-early",
            "sleeps-add-up",
            "sleeps-end-in-deadline-order",
            "same-deadline-all-fire",
            "timers-of-several-tasks-interleave",
            "zero-sleep-yields",
            "dropped-sleep-leaves-no-timer",
            "ten-thousand-timers-in-order",
            "join-waits-for-a-sleeping-task",
            "join-after-the-task-finished",
            "panic-is-contained-and-reported",
            "detached-task-runs-on",
            "semaphore-waiter-woken-by-release",
        ],
    ),
    (
        "I/O",
        "Look at the reactor: is every wait for a socket registered with the selector, each time, and is its waker called when the event comes?",
        &[
            "two-lines-in-one-write",
            "peer-closes-after-data",
            "blocked-reader-woken-by-write",
            "partial-line-waits-for-the-rest",
            "reader-parks-again-after-a-read",
            "peer-closes",
            "peer-resets",
            "descriptor-reused-after-close",
            "reader-and-timer-together",
        ],
    ),
    (
        "wakes from other threads",
        "Look at the waker: a wake from another thread, even during a poll, must reach the ready queue and wake a loop asleep in the selector.",
        &[
            "wake-from-thread-during-poll",
            "wake-twice-during-one-poll",
            "wake-from-thread-twice-in-a-row",
            "wake-after-finish-is-harmless",
            "waker-cloned-and-dropped-on-thread",
            "wake-from-thread-in-spawned-task",
            "many-tasks-woken-from-threads",
        ],
    ),
    (
        "abort and drop",
        "Look at abort and at the runtime's Drop: is the future dropped at once, and never polled again?",
        &[
            "abort-a-sleeping-task",
            "task-aborts-itself",
            "abort-after-finish-keeps-the-result",
            "cancelled-waiter-passes-its-turn-on",
            "dropping-the-runtime-drops-pending-tasks",
        ],
    ),
    (
        "fairness under load",
        "Look at one turn of the loop: do tasks that yield in a loop let timers and sockets have their turn, and does a yield wait until the loop has looked at I/O?",
        &[
            "yield-lets-the-others-run",
            "yielding-task-and-sleeper-share",
            "yielding-tasks-do-not-starve-timers",
            "yielding-tasks-do-not-starve-io",
            "yield-defers-until-io-was-looked-at",
        ],
    ),
];

/// A scenario of the grade's own.
fn own(name: &'static str, steps: Vec<crate::Step>, expect: Vec<crate::Expect>) -> Scenario {
    Scenario {
        name,
        group: "grade",
        steps,
        expect,
        differs: Vec::new(),
    }
}

/// Wakes itself through its own waker, once, in the middle of a poll (no
/// yield of the runtime's: that may go through a list of its own): only a
/// `block_on` that listens to its future's waker polls it again.
fn wakes_itself(rec: Arc<Recorder>) -> Pin<Box<dyn Future<Output = ()>>> {
    Box::pin(async move {
        rec.log("before");
        crate::futures_rt::yield_once().await;
        rec.log("after");
    })
}

/// How often stage 2's root may be polled while its task yields twenty
/// times: once to spawn and join, once when the task ends, and slack for
/// a runtime that wakes the joiner twice.
const ROOT_POLLS: u64 = 4;

/// How long stage 5's thread waits before it wakes the sleeping loop.
const LATE_WAKE: Duration = Duration::from_millis(100);

/// Pending once; a thread wakes the task [`LATE_WAKE`] later, when the
/// loop has long gone to sleep in its selector.
fn woken_late(rec: Arc<Recorder>) -> Pin<Box<dyn Future<Output = ()>>> {
    let mut waited = false;
    Box::pin(poll_fn(move |cx| {
        if waited {
            rec.log("woken");
            return Poll::Ready(());
        }
        waited = true;
        let waker = cx.waker().clone();
        // The thread's sleep is the stimulus, not a wait for a result: the
        // trace says whether the task woke, and when.
        thread::spawn(move || {
            thread::sleep(LATE_WAKE);
            waker.wake();
        });
        Poll::Pending
    }))
}

/// The seven stages, in order.
pub fn stages() -> Vec<Stage> {
    let suite = all();
    let find = |name: &str| {
        suite
            .iter()
            .find(|s| s.name == name)
            .cloned()
            .unwrap_or_else(|| panic!("the suite has no scenario `{name}`"))
    };
    PLAN.iter()
        .enumerate()
        .map(|(i, (name, hint, names))| {
            let check = |scenario, quiet, root| Check {
                scenario,
                quiet,
                root,
                most_root_polls: None,
            };
            let mut checks: Vec<Check> = names.iter().map(|n| check(find(n), None, None)).collect();
            match i + 1 {
                1 => {
                    checks.push(check(
                        own(
                            "block-on-runs-the-future",
                            vec![Log("ran")],
                            vec![ev("ran")],
                        ),
                        None,
                        None,
                    ));
                    checks.push(check(
                        own(
                            "block-on-resumes-after-a-yield",
                            vec![Log("before"), Yield, Log("after"), Yield, Log("again")],
                            vec![ev("before"), ev("after"), ev("again")],
                        ),
                        None,
                        None,
                    ));
                    checks.push(check(
                        own(
                            "block-on-polls-again-when-woken",
                            Vec::new(),
                            vec![ev("before"), ev("after")],
                        ),
                        None,
                        Some(wakes_itself),
                    ));
                }
                2 => checks.push(Check {
                    most_root_polls: Some(ROOT_POLLS),
                    ..check(
                        own(
                            "the-root-waits-while-another-task-runs",
                            vec![
                                Spawn("a", [vec![Yield; 20], vec![Log("a done")]].concat()),
                                Join("a"),
                            ],
                            vec![ev("a done"), ev("a ok")],
                        ),
                        None,
                        None,
                    )
                }),
                3 => checks.push(check(
                    own(
                        "a-sleeping-runtime-sleeps",
                        vec![Sleep(150), Log("woke")],
                        vec![at_least("woke", 150)],
                    ),
                    Some("a task asleep for 150 ms, nothing else to do"),
                    None,
                )),
                4 => checks.push(check(
                    own(
                        "a-runtime-waiting-for-a-socket-sleeps",
                        vec![
                            Spawn("r", vec![Read]),
                            Sleep(150),
                            PeerWrite("NAK late\n"),
                            Join("r"),
                        ],
                        vec![ev("got NAK late"), ev("r ok")],
                    ),
                    Some("a reader waiting 150 ms for its peer"),
                    None,
                )),
                5 => checks.push(check(
                    own(
                        "wake-from-thread-while-the-loop-sleeps",
                        Vec::new(),
                        vec![at_least("woken", LATE_WAKE.as_millis() as u64)],
                    ),
                    Some("a task waiting 100 ms for another thread's wake"),
                    Some(woken_late),
                )),
                _ => {}
            }
            Stage {
                number: i + 1,
                name,
                hint,
                checks,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every scenario of the suite is graded, in the stage of the last
    /// feature it needs; only fairness's first one is also an early check.
    #[test]
    fn every_scenario_of_the_suite_is_in_a_stage() {
        let stages = stages();
        for scenario in all() {
            let count = stages
                .iter()
                .flat_map(|s| &s.checks)
                .filter(|c| c.scenario.name == scenario.name)
                .count();
            let want = if scenario.name == "yield-lets-the-others-run" {
                2
            } else {
                1
            };
            assert_eq!(count, want, "`{}` is in {count} stages", scenario.name);
        }
    }
}
