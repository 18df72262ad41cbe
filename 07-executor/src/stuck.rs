//! How the loop knows that nothing can ever wake the tasks left.
//!
//! A task that waits is pending, and it can only run again when someone
//! calls a waker of it. When no task is queued, no task waits on a socket
//! and no timer is set, who could? Only a holder of one of its wakers:
//!
//! - one of this crate's own primitives (a semaphore's queue, a
//!   [`JoinHandle`](crate::JoinHandle)): these wake a task only when
//!   *another task* runs (releases a permit, finishes), and no task will
//!   run, so they count for nothing;
//! - anyone else: most likely another thread (a `Waker` is `Send`), which
//!   may call it at any time. The loop must then sleep and let the
//!   self-pipe wake it.
//!
//! A `Waker` made from an `Arc` is counted by that `Arc`: every clone is a
//! strong reference. The executor keeps exactly [`OWN_REFS`] per task (the
//! `Arc`, and the `Waker` it polls with), and the primitives of this crate
//! say how many they keep (`HeldWaker`, in `poll_state.rs`), so
//! `strong_count - OWN_REFS - held here` is the number of wakers of that
//! task held by someone else. When it is zero for every waiting task, the
//! run is stuck: [`Stuck`] names each task and what it waits on, like
//! stage 6's deadlock error, instead of a process that sleeps forever.
//!
//! # What it cannot see
//!
//! A waker sent to another thread that drops it without waking: the loop
//! sleeps in `epoll_wait`, correctly believing a wake may still come, and
//! no event ever ends the sleep. Stage 6 counts its `Remote`s and wakes the
//! loop when one is dropped; a `Waker` gives no such hook (the `Wake` trait
//! has no "clone dropped" method), and tokio hangs in the same case.
//!
//! Not here: when the loop asks (`executor.rs`, step 3 of a turn).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{Ordering, fence};

use crate::poll_state::{PollState, WaitKind};
use crate::waker::{TaskId, TaskWaker};

/// References to a task's waker that the executor itself keeps: the `Arc`
/// in its task table and the `Waker` it polls with.
pub(crate) const OWN_REFS: usize = 2;

/// What a stuck task waits on when nobody holds a waker of it at all.
pub(crate) const NO_WAKER: &str = "nothing: its future returned Pending and kept no waker";

// ANCHOR: stuck
/// `Some` when no task of `waiting` can be woken by anyone but another
/// task: every waker beyond the executor's own is held by this crate's
/// primitives, as `state` counts them.
pub(crate) fn stuck<'a>(
    state: &PollState,
    waiting: impl Iterator<Item = (TaskId, &'a Arc<TaskWaker>)>,
) -> Option<Stuck> {
    let mut tasks = Vec::new();
    for (id, arc) in waiting {
        let wakers = Arc::strong_count(arc) - OWN_REFS;
        let (here, kind) = state.held(id);
        if wakers > here {
            // Someone else holds one: another thread, very likely.
            return None;
        }
        tasks.push((id, kind.map_or(NO_WAKER, WaitKind::what)));
    }
    // A thread that woke a task and then dropped its waker did the wake
    // first; this fence makes that wake visible to the caller's next
    // look at the queue (`Arc`'s drop is a release).
    fence(Ordering::Acquire);
    tasks.sort_unstable_by_key(|&(id, _)| id);
    Some(Stuck { tasks })
}
// ANCHOR_END: stuck

/// Tasks that wait with nothing left to wake them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stuck {
    /// Each stuck task (the `block_on` future included) and what it waits on.
    pub tasks: Vec<(TaskId, &'static str)>,
}

impl fmt::Display for Stuck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut on: Vec<(&str, usize)> = Vec::new();
        for &(_, what) in &self.tasks {
            match on.iter_mut().find(|(w, _)| *w == what) {
                Some((_, n)) => *n += 1,
                None => on.push((what, 1)),
            }
        }
        let on: Vec<String> = on
            .iter()
            .map(|(what, n)| format!("{n} on {what}"))
            .collect();
        let n = self.tasks.len();
        write!(
            f,
            "stuck: {n} task{} wait{} and nothing can wake them ({})",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" },
            on.join("; ")
        )
    }
}

impl std::error::Error for Stuck {}
