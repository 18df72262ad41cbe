//! Wakers, from `std::task::Wake`: what a future keeps so that it can say
//! "poll me again", and the ready queue that saying it lands in.
//!
//! A future that cannot finish yet returns `Poll::Pending`, and before it
//! does, it hands a clone of `cx.waker()` to whatever it waits for: the
//! reactor for a socket, the timer heap for a deadline, a semaphore's queue,
//! or another thread. When that thing happens, it calls `wake()`, and the
//! executor polls the task again. That is the whole contract; this file is
//! its executor's side.
//!
//! # Why `Send + Sync`, on a one-thread executor
//!
//! `Waker` is `Send + Sync` whatever the executor, because the executor
//! cannot know where a future will send its waker: to a thread that does
//! a blocking DNS lookup, a file read, a computation. So a waker must not
//! touch the executor's single-threaded state (its `Rc`s and `RefCell`s)
//! directly. Ours holds only the task's number, its `scheduled` flag and
//! an `Arc` of [`Wakeups`], the one part of the executor built for
//! threads: a `Mutex`-guarded list of woken task numbers
//! (`schedule.rs`), and the write end of the self-pipe that interrupts the loop's `epoll_wait` when it is asleep
//! (`notify.rs`). The tasks themselves, and their futures, stay on the
//! executor's thread, where the loop looks the numbers up.
//!
//! # Woken twice, polled once
//!
//! Each [`TaskWaker`] has a `scheduled` flag: the first `wake` sets it and
//! queues the task, later ones see it set and do nothing. The loop clears
//! it just *before* polling, so a wake that arrives during the poll (the
//! future woke itself, or a reply came in on another thread) queues the task
//! again, and is not lost. Waking a task that has finished is harmless: the
//! loop finds no task under that number and moves on. Which atomic
//! operations make "not lost" true on every machine, and the loom model
//! that checks it, are in `schedule.rs`.
//!
//! Not here: the loop that takes the queue ([`crate::Executor`]).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::Wake;

use crate::notify::Notifier;
use crate::record::{Doing, DoingGuard, NO_WAKE, Recorder};
pub use crate::schedule::TaskId;
use crate::schedule::{ReadyQueue, Scheduled};

// ANCHOR: task_waker
/// The data behind every `Waker` of one task. `Send + Sync`: only a number,
/// a flag and an `Arc` of the thread-safe [`Wakeups`].
pub(crate) struct TaskWaker {
    id: TaskId,
    /// Set by the first wake, cleared by the loop just before it polls
    /// (`schedule.rs` has the protocol and its orderings).
    scheduled: Scheduled,
    wakeups: Arc<Wakeups>,
    /// The recorded wake that queued it ([`NO_WAKE`] when not recording):
    /// written before the push, read by the loop after it takes the queue.
    cause: AtomicU32,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakeups.wakes.fetch_add(1, Ordering::Relaxed);
        let cause = match self.wakeups.recorder() {
            Some(recorder) => recorder.woke(self.wakeups.key(), self.id),
            None => NO_WAKE,
        };
        // Already queued and not yet polled: one poll will see both wakes.
        if !self.scheduled.wake() {
            self.wakeups.coalesced.fetch_add(1, Ordering::Relaxed);
            return;
        }
        // Before the push: the loop reads it once it has taken the queue,
        // whose lock orders the two.
        self.cause.store(cause, Ordering::Relaxed);
        self.wakeups.push(self.id);
    }
}
// ANCHOR_END: task_waker

impl TaskWaker {
    /// A waker for task `id`, not yet scheduled.
    pub(crate) fn new(id: TaskId, wakeups: Arc<Wakeups>) -> Arc<TaskWaker> {
        Arc::new(TaskWaker {
            id,
            scheduled: Scheduled::new(),
            wakeups,
            cause: AtomicU32::new(NO_WAKE),
        })
    }

    /// The recorded wake that queued it, if any: read by the loop before it
    /// polls (and so before a new wake can queue it again).
    pub(crate) fn cause(&self) -> Option<u32> {
        Some(self.cause.load(Ordering::Relaxed)).filter(|&at| at != NO_WAKE)
    }

    /// Was it woken since [`TaskWaker::unschedule`]? Read after a poll:
    /// the poll woke its own task (or another thread did meanwhile).
    pub(crate) fn is_scheduled(&self) -> bool {
        self.scheduled.is_set()
    }

    /// Called by the loop just before polling: a wake from now on queues the
    /// task again, and the poll sees what every wake so far published.
    pub(crate) fn unschedule(&self) {
        self.scheduled.start_poll();
    }
}

/// The executor's thread-safe half: the woken tasks, the self-pipe that
/// interrupts the loop when it is asleep, and the counters of wakes.
pub(crate) struct Wakeups {
    ready: ReadyQueue,
    notifier: Notifier,
    /// Calls to `wake`, from any thread.
    pub(crate) wakes: AtomicU64,
    /// Wakes of a task that was already queued (absorbed).
    pub(crate) coalesced: AtomicU64,
    /// Wakes that found the loop asleep and interrupted its wait.
    pub(crate) interrupts: AtomicU64,
    /// The tasks' log, once asked for (`record.rs`).
    recorder: OnceLock<Recorder>,
}

impl Wakeups {
    pub(crate) fn new(notifier: Notifier) -> Wakeups {
        Wakeups {
            ready: ReadyQueue::new(),
            notifier,
            wakes: AtomicU64::new(0),
            coalesced: AtomicU64::new(0),
            interrupts: AtomicU64::new(0),
            recorder: OnceLock::new(),
        }
    }

    /// The tasks' log, if the executor keeps one.
    pub(crate) fn recorder(&self) -> Option<&Recorder> {
        self.recorder.get()
    }

    /// Starts keeping the tasks' log (once; later calls keep the first).
    pub(crate) fn record(&self) -> &Recorder {
        self.recorder.get_or_init(Recorder::new)
    }

    /// The loop of this executor is doing `what` on this thread until the
    /// guard is dropped; nothing (`None`) when it records no tasks.
    pub(crate) fn doing(self: &Arc<Self>, what: Doing) -> Option<DoingGuard> {
        self.recorder()?;
        Some(DoingGuard::new(self.key(), what))
    }

    /// This executor's tag in what the loop is doing (`record.rs`): its
    /// `Wakeups`' address.
    pub(crate) fn key(self: &Arc<Self>) -> usize {
        Arc::as_ptr(self) as usize
    }

    /// Queues task `id`; if the loop is asleep, wakes it up.
    fn push(&self, id: TaskId) {
        // Outside the queue's lock: the write is a system call, and other
        // threads waking other tasks should not wait for it.
        if self.ready.push(id) {
            self.interrupts.fetch_add(1, Ordering::Relaxed);
            self.notifier.notify();
        }
    }

    /// Moves every queued task into `into` (emptied first), oldest first.
    pub(crate) fn take(&self, into: &mut Vec<TaskId>) {
        self.ready.take(into);
    }

    /// Is a task waiting to be polled?
    pub(crate) fn any_ready(&self) -> bool {
        self.ready.any_ready()
    }

    /// The loop is about to sleep: `false` if a task is already queued
    /// ([`ReadyQueue::prepare_to_sleep`]).
    pub(crate) fn prepare_to_sleep(&self) -> bool {
        self.ready.prepare_to_sleep()
    }

    /// The loop is awake again: wakes go back to only queueing.
    pub(crate) fn awake(&self) {
        self.ready.awake();
    }
}
