//! Time: sleeps end in deadline order, never early; a zero sleep yields;
//! a dropped sleep leaves no timer behind; 10,000 timers fire in order.

use super::scenario;
use crate::rt_executor::EXECUTOR;
use crate::rt_fibers::FIBERS;
use crate::script::Scenario;
use crate::script::Step::*;
use crate::trace::{any_order, at_least, ev, one_thread_order};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        scenario(
            "sleeps-end-in-deadline-order",
            "time",
            vec![
                Spawn("a", vec![Sleep(30), Log("a woke")]),
                Spawn("b", vec![Sleep(10), Log("b woke")]),
                Join("a"),
                Join("b"),
            ],
            // Where tasks run in parallel, two timers that a stalled
            // machine finds due at once wake two tasks in either order.
            vec![one_thread_order(vec![
                at_least("b woke", 10),
                at_least("a woke", 30),
                ev("a ok"),
                ev("b ok"),
            ])],
        ),
        scenario(
            "sleep-is-never-early",
            "time",
            vec![Sleep(15), Log("woke")],
            vec![at_least("woke", 15)],
        ),
        scenario(
            "sleeps-add-up",
            "time",
            vec![Sleep(10), Log("one"), Sleep(10), Log("two")],
            vec![at_least("one", 10), at_least("two", 20)],
        ),
        scenario(
            "zero-sleep-yields",
            "time",
            vec![Spawn("t", vec![Log("t ran")]), Sleep(0), Log("main after sleep"), Join("t")],
            vec![one_thread_order(vec![ev("t ran"), ev("main after sleep")]), ev("t ok")],
        )
        .differs(
            EXECUTOR,
            "07's Sleep is ready at its first poll once its deadline has passed, without a trip through the loop: a zero sleep does not yield",
        ),
        scenario(
            "dropped-sleep-leaves-no-timer",
            "time",
            vec![Spawn("p", vec![DropSleep(10), Park]), Sleep(30), Log("main done")],
            vec![at_least("main done", 30)],
        )
        .differs(FIBERS, "a fiber's sleep is one blocking call: it cannot be started, then dropped half-way"),
        scenario(
            "ten-thousand-timers-in-order",
            "time",
            vec![Timers(10_000)],
            vec![ev("timers fired in order, none early")],
        ),
        scenario(
            "same-deadline-all-fire",
            "time",
            vec![
                Spawn("a", vec![Sleep(10), Log("a woke")]),
                Spawn("b", vec![Sleep(10), Log("b woke")]),
                Spawn("c", vec![Sleep(10), Log("c woke")]),
                Join("a"),
                Join("b"),
                Join("c"),
            ],
            vec![one_thread_order(vec![
                any_order(vec![at_least("a woke", 10), at_least("b woke", 10), at_least("c woke", 10)]),
                ev("a ok"),
                ev("b ok"),
                ev("c ok"),
            ])],
        ),
        scenario(
            "timers-of-several-tasks-interleave",
            "time",
            vec![
                Spawn("a", vec![Sleep(10), Log("a first"), Sleep(30), Log("a second")]),
                Spawn("b", vec![Sleep(25), Log("b woke")]),
                Join("a"),
                Join("b"),
            ],
            vec![one_thread_order(vec![
                at_least("a first", 10),
                at_least("b woke", 25),
                at_least("a second", 40),
                ev("a ok"),
                ev("b ok"),
            ])],
        ),
    ]
}
