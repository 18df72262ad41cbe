//! Deadlocks: noticing that the fibers left can never be woken, saying on
//! what they wait, and unwinding them.
//!
//! The source article's loop carries on while any fiber waits; with no timer and no
//! socket it does not even sleep, so two fibers that each hold the lock the
//! other wants make it spin at 100% of a core, forever. Ours asks, each
//! time it is about to sleep with no timer, whether anything could still
//! make a fiber ready ([`Scheduler::nothing_can_wake`]). If nothing can,
//! `run` returns [`RunError::Deadlock`](super::RunError::Deadlock) with a
//! [`Deadlock`] report, after unwinding the stuck fibers so that their
//! destructors run.
//!
//! Not here: the loop that asks (`scheduler.rs`).

use std::collections::BTreeMap;
use std::fmt;

use super::switch::Fiber;
use super::table::FiberId;
use super::wait::WaitOn;
use super::{Scheduler, State};
use crate::heap::TimerHeap;

/// Fibers that can never be woken: what a deadlock looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deadlock {
    /// Each stuck fiber and what it waits on (the `blocker` it passed to
    /// [`Scheduler::block`]).
    pub stuck: Vec<(FiberId, &'static str)>,
}

impl fmt::Display for Deadlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut by_blocker: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, blocker) in &self.stuck {
            *by_blocker.entry(blocker).or_default() += 1;
        }
        let on: Vec<String> = by_blocker
            .iter()
            .map(|(blocker, n)| format!("{n} on {blocker}"))
            .collect();
        write!(
            f,
            "deadlock: {} fiber{} blocked with nothing left to wake them ({})",
            self.stuck.len(),
            if self.stuck.len() == 1 { "" } else { "s" },
            on.join(", ")
        )
    }
}

impl Scheduler {
    // ANCHOR: nothing_can_wake
    /// True when no fiber is ready and nothing could ever make one ready:
    /// no timer, no fiber waiting on a socket, no [`crate::Remote`] alive
    /// that another thread could unblock with, and no unblock in flight.
    pub(super) fn nothing_can_wake(&self, state: &State) -> bool {
        state.ready.is_empty()
            && state.timers.is_empty()
            && state.io_waiters == 0
            && self.inner.inbox.is_closed()
    }
    // ANCHOR_END: nothing_can_wake

    /// Unwinds every fiber left (after a deadlock), so their destructors
    /// run, their stacks are freed, and the handles they hold to this
    /// scheduler are dropped.
    pub(super) fn tear_down(&self) {
        self.inner.tearing_down.set(true);
        let fibers: Vec<Fiber> = {
            let mut state = self.inner.state.borrow_mut();
            // End every wait first, so that no ticket wakes anything: a
            // lock released by an unwinding fiber must go back to its
            // count, not be handed to another fiber that is going too.
            for (_, fiber) in state.fibers.iter_mut() {
                fiber.wait = None;
                fiber.wait_no += 1;
            }
            state.ready.clear();
            state.timers = TimerHeap::new();
            state.io_waiters = 0;
            state
                .fibers
                .iter_mut()
                .filter_map(|(_, fiber)| fiber.coroutine.take())
                .collect()
        };
        // Dropping a suspended coroutine unwinds its stack. Destructors run
        // there (a lock guard releases its lock, a socket deregisters) and
        // may call back into the scheduler, so no borrow is held.
        drop(fibers);
        let mut state = self.inner.state.borrow_mut();
        // Retire the slots with a new generation, so that no old id or
        // ticket can name the fibers that will reuse them.
        let left: Vec<FiberId> = state.fibers.iter().map(|(id, _)| id).collect();
        for id in left {
            state.fibers.remove(id);
        }
        state.ready.clear();
        drop(state);
        self.inner.tearing_down.set(false);
    }
}

impl State {
    /// What every blocked fiber waits on.
    pub(super) fn deadlock(&self) -> Deadlock {
        let stuck = self
            .fibers
            .iter()
            .map(|(id, fiber)| {
                let blocker = match fiber.wait.as_ref().map(|w| w.on) {
                    Some(WaitOn::Block(blocker)) => blocker,
                    _ => "nothing",
                };
                (id, blocker)
            })
            .collect();
        Deadlock { stuck }
    }
}
