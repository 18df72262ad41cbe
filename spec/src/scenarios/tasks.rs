//! Tasks: spawn (from a task too), join, abort (of a sleeping task, and
//! by a task of itself), a panic contained and reported, and dropping the
//! runtime, which drops every pending future and runs its destructors.

use super::{FIBERS_NO_ABORT, scenario};
use crate::rt_executor::EXECUTOR;
use crate::rt_fibers::FIBERS;
use crate::script::Scenario;
use crate::script::Step::*;
use crate::trace::{any_order, at_least, ev, one_thread_order};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        scenario(
            "spawned-task-runs-and-joins",
            "tasks",
            vec![Spawn("t", vec![Log("t ran")]), Join("t")],
            vec![ev("t ran"), ev("t ok")],
        ),
        scenario(
            "spawn-from-inside-a-task",
            "tasks",
            vec![
                Spawn("a", vec![Spawn("b", vec![Log("b ran")]), Join("b"), Log("a ran")]),
                Join("a"),
            ],
            vec![ev("b ran"), ev("b ok"), ev("a ran"), ev("a ok")],
        ),
        scenario(
            "spawn-does-not-run-inline",
            "tasks",
            vec![Spawn("t", vec![Log("t ran")]), Log("main goes on"), Join("t")],
            vec![one_thread_order(vec![ev("main goes on"), ev("t ran")]), ev("t ok")],
        ),
        scenario(
            "join-waits-for-a-sleeping-task",
            "tasks",
            vec![Spawn("t", vec![Sleep(10), Log("t woke")]), Log("spawned"), Join("t")],
            vec![ev("spawned"), at_least("t woke", 10), ev("t ok")],
        ),
        scenario(
            "join-after-the-task-finished",
            "tasks",
            vec![Spawn("t", vec![Log("t ran")]), Sleep(10), Join("t")],
            vec![ev("t ran"), ev("t ok")],
        ),
        scenario(
            "spawned-tasks-start-in-spawn-order",
            "tasks",
            vec![
                Spawn("a", vec![Log("a ran")]),
                Spawn("b", vec![Log("b ran")]),
                Spawn("c", vec![Log("c ran")]),
                Join("a"),
                Join("b"),
                Join("c"),
            ],
            // Where tasks run in parallel, a join may end before the next
            // task has run: the whole trace is in any order there.
            vec![one_thread_order(vec![
                ev("a ran"),
                ev("b ran"),
                ev("c ran"),
                ev("a ok"),
                ev("b ok"),
                ev("c ok"),
            ])],
        ),
        scenario(
            "abort-a-sleeping-task",
            "tasks",
            vec![
                Spawn("t", vec![Guard("g"), Mark, Sleep(10_000), Log("never")]),
                WaitQueued(1),
                Abort("t"),
                Join("t"),
            ],
            vec![ev("g dropped"), ev("t cancelled")],
        )
        .differs(FIBERS, FIBERS_NO_ABORT),
        scenario(
            "task-aborts-itself",
            "tasks",
            vec![Spawn("t", vec![Guard("g"), AbortSelf("t"), Log("never")]), Join("t")],
            vec![ev("g dropped"), ev("t cancelled")],
        )
        .differs(FIBERS, FIBERS_NO_ABORT),
        scenario(
            "abort-after-finish-keeps-the-result",
            "tasks",
            vec![Spawn("t", vec![Log("t ran")]), Sleep(10), Abort("t"), Join("t")],
            vec![ev("t ran"), ev("t ok")],
        )
        .differs(FIBERS, FIBERS_NO_ABORT)
        .differs(
            EXECUTOR,
            "07 aborts through a TaskSet, whose abort_all forgets every child, finished ones and their results too",
        ),
        scenario(
            "panic-is-contained-and-reported",
            "tasks",
            vec![
                Spawn("p", vec![Panic]),
                Spawn("q", vec![Sleep(10), Log("q ran")]),
                Join("p"),
                Join("q"),
            ],
            vec![one_thread_order(vec![ev("p panicked"), at_least("q ran", 10), ev("q ok")])],
        ),
        scenario(
            "panic-runs-the-destructors",
            "tasks",
            vec![Spawn("p", vec![Guard("g"), Panic]), Join("p")],
            vec![ev("g dropped"), ev("p panicked")],
        ),
        scenario(
            "detached-task-runs-on",
            "tasks",
            // The root waits for the mark, not for a time: a loaded machine
            // may run the detached task late, never not at all.
            vec![Detach(vec![Sleep(5), Log("detached ran"), Mark]), WaitQueued(1), Log("main done")],
            vec![at_least("detached ran", 5), ev("main done")],
        ),
        scenario(
            "dropping-the-runtime-drops-pending-tasks",
            "tasks",
            vec![
                Spawn("a", vec![Guard("a's guard"), Mark, Park]),
                Spawn("b", vec![Guard("b's guard"), Mark, Park]),
                WaitQueued(2),
                Log("main done"),
            ],
            vec![ev("main done"), any_order(vec![ev("a's guard dropped"), ev("b's guard dropped")])],
        ),
    ]
}
