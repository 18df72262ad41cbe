//! Fairness: tasks that yield in a loop do not starve timers or I/O (tokio's
//! `io_driver_called_when_under_load`), and a yield lets the others run.

use super::scenario;
use crate::rt_executor::EXECUTOR;
use crate::rt_fibers::FIBERS;
use crate::script::Scenario;
use crate::script::Step::{self, *};
use crate::trace::{any_order, at_least, ev, one_thread_order};

/// `n` detached tasks that yield until a `Stop`.
fn spinners(n: usize) -> impl Iterator<Item = Step> {
    (0..n).map(|_| Detach(vec![SpinUntilStop]))
}

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        scenario(
            "yielding-tasks-do-not-starve-timers",
            "fairness",
            spinners(100).chain([Sleep(10), Log("timer fired"), Stop]).collect(),
            vec![at_least("timer fired", 10)],
        ),
        scenario(
            "yielding-tasks-do-not-starve-io",
            "fairness",
            [Spawn("r", vec![Read, Stop])]
                .into_iter()
                .chain(spinners(100))
                .chain([Yield, PeerWrite("NAK io\n"), Join("r")])
                .collect(),
            vec![ev("got NAK io"), ev("r ok")],
        ),
        scenario(
            "yield-defers-until-io-was-looked-at",
            "fairness",
            vec![
                Spawn("r", vec![Read]),
                Sleep(5),
                Spawn("w", vec![PeerWrite("NAK x\n"), Yield, Log("after yield")]),
                Join("r"),
                Join("w"),
            ],
            vec![one_thread_order(vec![
                ev("got NAK x"),
                ev("after yield"),
                ev("r ok"),
                ev("w ok"),
            ])],
        )
        .differs(
            FIBERS,
            "06's yield_now puts the fiber at the back of the ready queue, which the loop drains (up to 1024 fibers a turn) before it polls the sockets",
        )
        .differs(
            EXECUTOR,
            "07 has no yield of its own: a future that wakes itself goes to the back of the ready queue, which the loop drains (up to 1024 tasks a turn) before it polls epoll",
        ),
        scenario(
            "yield-lets-the-others-run",
            "fairness",
            vec![
                Spawn("a", vec![Log("a1"), Yield, Log("a2")]),
                Spawn("b", vec![Log("b1"), Yield, Log("b2")]),
                Join("a"),
                Join("b"),
            ],
            // Tokio wakes the tasks a yield deferred in either order.
            vec![one_thread_order(vec![
                ev("a1"),
                ev("b1"),
                any_order(vec![ev("a2"), ev("b2")]),
                ev("a ok"),
                ev("b ok"),
            ])],
        ),
        scenario(
            "yielding-task-and-sleeper-share",
            "fairness",
            vec![
                Spawn("s", vec![SpinUntilStop, Log("spinner stopped")]),
                Sleep(10),
                Log("sleeper woke"),
                Stop,
                Join("s"),
            ],
            vec![at_least("sleeper woke", 10), ev("spinner stopped"), ev("s ok")],
        ),
    ]
}
