//! Wake-ups from other threads: during a poll, twice; after the task
//! finished; through a waker cloned and dropped on another thread.

use super::scenario;
use crate::script::Scenario;
use crate::script::Step::*;
use crate::trace::{any_order, ev};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        scenario(
            "wake-from-thread-during-poll",
            "wake",
            vec![WakeFromThread(1), Log("woke")],
            vec![ev("woke")],
        ),
        scenario(
            "wake-twice-during-one-poll",
            "wake",
            vec![WakeFromThread(2), Log("woke")],
            vec![ev("woke")],
        ),
        scenario(
            "wake-from-thread-twice-in-a-row",
            "wake",
            vec![
                WakeFromThread(1),
                Log("first"),
                WakeFromThread(1),
                Log("second"),
            ],
            vec![ev("first"), ev("second")],
        ),
        scenario(
            "wake-after-finish-is-harmless",
            "wake",
            vec![
                Spawn("t", vec![StoreWaker, Log("t ran")]),
                Join("t"),
                WakeStored,
                Sleep(5),
                Log("after"),
            ],
            vec![ev("t ran"), ev("t ok"), ev("after")],
        ),
        scenario(
            "waker-cloned-and-dropped-on-thread",
            "wake",
            vec![CloneWakerOnThread, Log("woke")],
            vec![ev("woke")],
        ),
        scenario(
            "wake-from-thread-in-spawned-task",
            "wake",
            vec![
                Spawn("t", vec![WakeFromThread(1), Log("t woke")]),
                Join("t"),
            ],
            vec![ev("t woke"), ev("t ok")],
        ),
        scenario(
            "many-tasks-woken-from-threads",
            "wake",
            vec![
                Spawn("a", vec![WakeFromThread(2), Log("a woke")]),
                Spawn("b", vec![WakeFromThread(2), Log("b woke")]),
                Spawn("c", vec![WakeFromThread(2), Log("c woke")]),
                Join("a"),
                Join("b"),
                Join("c"),
            ],
            vec![any_order(vec![
                ev("a woke"),
                ev("b woke"),
                ev("c woke"),
                ev("a ok"),
                ev("b ok"),
                ev("c ok"),
            ])],
        ),
    ]
}
