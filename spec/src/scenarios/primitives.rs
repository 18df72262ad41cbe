//! Primitives: a semaphore and a lock hand over in FIFO order, and a
//! waiter that is cancelled passes its turn on.

use super::{FIBERS_NO_ABORT, scenario};
use crate::rt_fibers::FIBERS;
use crate::script::Scenario;
use crate::script::Step::{self, *};
use crate::trace::ev;

/// Holds `take`, queues three tasks behind it one by one, lets go.
fn fifo(take: Step, give: Step) -> Vec<Step> {
    let waiter = |name: &'static str| vec![take.clone(), Log(name), give.clone()];
    vec![
        take.clone(),
        Spawn("a", waiter("a got it")),
        WaitQueued(1),
        Spawn("b", waiter("b got it")),
        WaitQueued(2),
        Spawn("c", waiter("c got it")),
        WaitQueued(3),
        give.clone(),
        // The last first: once it has its turn, the others are done.
        Join("c"),
        Join("a"),
        Join("b"),
    ]
}

fn fifo_trace() -> Vec<crate::Expect> {
    ["a got it", "b got it", "c got it", "c ok", "a ok", "b ok"]
        .map(ev)
        .into()
}

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        scenario(
            "semaphore-hands-over-in-fifo-order",
            "primitives",
            fifo(Acquire, Release),
            fifo_trace(),
        ),
        scenario(
            "lock-hands-over-in-fifo-order",
            "primitives",
            fifo(Lock, Unlock),
            fifo_trace(),
        ),
        scenario(
            "semaphore-waiter-woken-by-release",
            "primitives",
            vec![
                Acquire,
                Spawn("a", vec![Acquire, Log("a got it")]),
                WaitQueued(1),
                Sleep(5),
                Log("releasing"),
                Release,
                Join("a"),
            ],
            vec![ev("releasing"), ev("a got it"), ev("a ok")],
        ),
        scenario(
            "cancelled-waiter-passes-its-turn-on",
            "primitives",
            vec![
                Lock,
                Spawn("a", vec![Lock, Log("a got it")]),
                WaitQueued(1),
                Spawn("b", vec![Lock, Log("b got it"), Unlock]),
                WaitQueued(2),
                Abort("a"),
                Unlock,
                Join("b"),
                Join("a"),
            ],
            vec![ev("b got it"), ev("b ok"), ev("a cancelled")],
        )
        .differs(FIBERS, FIBERS_NO_ABORT),
    ]
}
