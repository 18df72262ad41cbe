//! The part of the executor that other threads touch: a task's
//! `scheduled` flag ([`Scheduled`]) and the queue of woken tasks
//! ([`ReadyQueue`]). A waker may be called from any thread, while the loop
//! polls on its own; this file is the protocol between the two, small
//! enough to be checked by loom in every interleaving (`schedule/loom.rs`).
//!
//! # The protocol
//!
//! A task's flag says "queued, and not yet polled". Two operations change
//! it, and both are read-modify-writes on the one atomic:
//!
//! | transition | who | operation | returns |
//! | --- | --- | --- | --- |
//! | idle → scheduled | a wake, any thread | `swap(true, AcqRel)` | was it idle? then queue the task |
//! | scheduled → scheduled | a second wake | the same swap | it was not: the coming poll serves both |
//! | scheduled → idle | the loop, just before it polls | `swap(false, AcqRel)` | (nothing the loop needs) |
//!
//! The guarantee: **a wake is never lost.** Either the wake comes after
//! the loop's clear (its swap reads `false`, and it queues the task again,
//! so there will be another poll), or it comes before (its swap reads
//! `true`, queues nothing, and the poll about to start must see whatever
//! the waking thread wrote before it woke: the reply it received, the flag
//! it set).
//!
//! That second case is what the orderings are for. The wake's swap is a
//! *release*: it publishes the writes its thread made before it. The loop's
//! clear is an *acquire* that reads the value the wake's swap wrote (the
//! two are read-modify-writes on one atomic, so the later one reads what
//! the earlier one wrote), so what the waker published happens-before the
//! poll. A plain `store(false, Release)` for the clear reads nothing: with
//! it, the poll may run on what its thread saw before the wake, return
//! `Pending`, and nothing is queued to poll it again. On x86 the `Arc`
//! increment that follows the clear (the waker, cloned for the poll) is a
//! full barrier and happens to hide the difference; the memory model
//! promises nothing of the kind, and under loom the wake is lost
//! (`schedule/loom.rs`, `a_wake_during_a_poll_is_never_lost`).
//!
//! The queue is a `Mutex` of task numbers: a wake that queues the task
//! (and the loop that takes the queue) synchronise through the lock, so
//! the poll that follows a queued wake sees the waker's writes too.
//!
//! Not here: the wakers that call this (`waker.rs`), the self-pipe a wake
//! writes to when the loop is asleep (`notify.rs`).

use std::fmt;

use crate::sync::{AtomicBool, Mutex, MutexGuard, Ordering};

#[cfg(all(test, loom))]
mod loom;

/// Names one task of an executor. Numbers are never reused, so a stale
/// waker (of a task that finished) can never poll a newer task by mistake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(pub(crate) u64);

impl TaskId {
    /// The future passed to [`block_on`](crate::Executor::block_on): not a
    /// spawned task, but woken and polled like one.
    pub(crate) const ROOT: TaskId = TaskId(0);
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == TaskId::ROOT {
            f.write_str("the block_on future")
        } else {
            write!(f, "task {}", self.0)
        }
    }
}

// ANCHOR: scheduled
/// A task's "queued, not yet polled" flag, shared by all its wakers.
#[derive(Debug)]
pub(crate) struct Scheduled(AtomicBool);

impl Scheduled {
    /// Idle: not queued.
    pub(crate) fn new() -> Scheduled {
        Scheduled(AtomicBool::new(false))
    }

    /// A wake, from any thread: `true` if the caller must queue the task
    /// (it was idle), `false` if it is queued already and its next poll will
    /// serve this wake too.
    pub(crate) fn wake(&self) -> bool {
        // Release: publishes this thread's writes (the data the task is
        // woken for) to the loop's clear, which reads this value.
        // Acquire: pairs with the loop's clear when this reads `false`, so
        // a queued task is queued after everything its last poll did.
        !self.0.swap(true, Ordering::AcqRel)
    }

    /// The loop is about to poll the task: a wake from now on queues it
    /// again.
    pub(crate) fn start_poll(&self) {
        // A read-modify-write, not a store: its acquire reads the last
        // wake's `true`, and so the poll sees what every wake so far
        // published (the module docs say why a store loses a wake). Its
        // release pairs with the acquire of the next wake that reads `false`.
        self.0.swap(false, Ordering::AcqRel);
    }

    /// Is it queued now? Read by the loop just after a poll, to tell a
    /// task that woke itself during it (`lints.rs`); a hint, not a sync.
    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
// ANCHOR_END: scheduled

/// The woken tasks, and whether the loop is asleep in `epoll_wait` (so that
/// the next wake must interrupt it).
#[derive(Debug)]
pub(crate) struct ReadyQueue {
    queue: Mutex<Queue>,
}

#[derive(Debug)]
struct Queue {
    /// Woken tasks, in the order they were woken.
    ready: Vec<TaskId>,
    /// The loop is in (or about to enter) `epoll_wait`.
    sleeping: bool,
}

impl ReadyQueue {
    /// Empty, the loop awake.
    pub(crate) fn new() -> ReadyQueue {
        ReadyQueue {
            queue: Mutex::new(Queue {
                ready: Vec::new(),
                sleeping: false,
            }),
        }
    }

    // ANCHOR: push
    /// Queues task `id`; `true` if the loop is asleep and the caller must
    /// interrupt its wait. Only the first wake of a sleep gets `true`: it
    /// also clears `sleeping`.
    pub(crate) fn push(&self, id: TaskId) -> bool {
        let mut queue = self.lock();
        queue.ready.push(id);
        std::mem::take(&mut queue.sleeping)
    }
    // ANCHOR_END: push

    /// Moves every queued task into `into` (emptied first), oldest first.
    pub(crate) fn take(&self, into: &mut Vec<TaskId>) {
        into.clear();
        std::mem::swap(&mut self.lock().ready, into);
    }

    /// Is a task waiting to be polled?
    pub(crate) fn any_ready(&self) -> bool {
        !self.lock().ready.is_empty()
    }

    // ANCHOR: sleep
    /// The loop is about to sleep: returns `false` if a task is already
    /// queued (do not sleep), else marks the loop asleep, so that the next
    /// wake, from whatever thread, writes to the self-pipe.
    ///
    /// Checking the queue and setting the flag under one lock is what makes
    /// this safe: a wake either came before (and the loop sees the task) or
    /// after (and sees `sleeping`, and interrupts the wait, even one that
    /// has not started yet: the byte waits in the pipe).
    pub(crate) fn prepare_to_sleep(&self) -> bool {
        let mut queue = self.lock();
        if queue.ready.is_empty() {
            queue.sleeping = true;
            true
        } else {
            false
        }
    }
    // ANCHOR_END: sleep

    /// The loop is awake again: wakes go back to only queueing.
    pub(crate) fn awake(&self) {
        self.lock().sleeping = false;
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // Nothing panics while holding this lock (a push and a swap), so a
        // poisoned lock still holds a consistent queue.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
