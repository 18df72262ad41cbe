//! The wake/poll protocol of `schedule.rs`, model-checked with loom: each
//! test runs its threads through every interleaving, and every value each
//! atomic load may return under the memory model, not only the ones this
//! machine happens to produce.
//!
//! Run with
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test -p executor --release --lib loom --target-dir target/loom
//! ```
//!
//! (its own target directory, so that the normal build is not rebuilt).
//!
//! The model is one task, the loop's queue, and what a waking thread sends
//! the task before it wakes it: a counter in a `Relaxed` atomic, the
//! weakest a channel could use, so that nothing but the protocol's own
//! orderings can make it visible to the poll. (The data cannot be a plain
//! cell: a wake that comes *after* the loop's clear is, by design,
//! concurrent with the poll, and a channel guards its data itself.)

use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::thread;

use super::TaskId;
use super::{ReadyQueue, Scheduled};

/// The one task of the model.
const TASK: TaskId = TaskId(1);

/// What the wakers and the loop share: the task's flag, the queue, what the
/// wakers sent, and the bytes they wrote to the self-pipe.
struct Model {
    scheduled: Scheduled,
    ready: ReadyQueue,
    /// Bumped by a waking thread just before it wakes the task.
    sent: AtomicUsize,
    /// Wakes that found the loop asleep: a byte in the self-pipe.
    interrupts: AtomicUsize,
}

impl Model {
    fn new() -> Arc<Model> {
        Arc::new(Model {
            scheduled: Scheduled::new(),
            ready: ReadyQueue::new(),
            sent: AtomicUsize::new(0),
            interrupts: AtomicUsize::new(0),
        })
    }

    /// `TaskWaker::wake_by_ref`, less its counters.
    fn wake(&self) {
        if self.scheduled.wake() && self.ready.push(TASK) {
            self.interrupts.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Sends the task one thing, then wakes it: what a thread that received
    /// a reply for it does.
    fn send_and_wake(&self) {
        self.sent.fetch_add(1, Ordering::Relaxed);
        self.wake();
    }

    /// One turn of the loop: takes the queue and polls what it holds. The
    /// poll is what the task's future would read: how much it was sent.
    /// `None` if nothing was queued.
    fn turn(&self) -> Option<usize> {
        let mut ready = Vec::new();
        self.ready.take(&mut ready);
        assert!(ready.len() <= 1, "the task was queued twice: {ready:?}");
        ready.first().map(|_| {
            self.scheduled.start_poll();
            self.sent.load(Ordering::Relaxed)
        })
    }

    /// Turns until nothing is queued; what the last poll saw, or `seen`
    /// if there was no poll.
    fn drain(&self, mut seen: usize) -> usize {
        while let Some(now) = self.turn() {
            seen = now;
        }
        seen
    }
}

/// A thread sends and wakes while the loop polls the task. Whichever comes
/// first, the task ends up having seen what was sent: the poll under way
/// saw it, or the wake queued another poll. With the clear as a plain
/// `store(false, Release)`, loom finds the interleaving where the wake
/// finds the flag still set and queues nothing, and the poll reads the
/// count from before the send.
#[test]
fn a_wake_during_a_poll_is_never_lost() {
    loom::model(|| {
        let model = Model::new();
        // Spawned: queued once.
        model.wake();
        let sender = {
            let model = model.clone();
            thread::spawn(move || model.send_and_wake())
        };
        let seen = model.turn().expect("the spawn queued the task");
        sender.join().expect("the sender returns");
        let seen = model.drain(seen);
        assert_eq!(
            seen, 1,
            "a wake was lost: the last poll saw nothing sent, and no poll was queued after it"
        );
    });
}

/// Two threads wake an idle task at once: one of them queues it, the
/// other finds it queued, and the loop polls it once.
#[test]
fn two_wakes_at_once_queue_the_task_once() {
    loom::model(|| {
        let model = Model::new();
        let wakers: Vec<_> = (0..2)
            .map(|_| {
                let model = model.clone();
                thread::spawn(move || model.wake())
            })
            .collect();
        for waker in wakers {
            waker.join().expect("the waker returns");
        }
        let mut ready = Vec::new();
        model.ready.take(&mut ready);
        assert_eq!(ready, [TASK], "queued exactly once");
    });
}

/// Two threads send and wake while the loop polls: the task is never in
/// the queue twice (`turn` asserts it), and in the end it has seen both.
#[test]
fn two_racing_wakers_during_a_poll_lose_nothing() {
    loom::model(|| {
        let model = Model::new();
        model.wake();
        let senders: Vec<_> = (0..2)
            .map(|_| {
                let model = model.clone();
                thread::spawn(move || model.send_and_wake())
            })
            .collect();
        let seen = model.turn().expect("the spawn queued the task");
        for sender in senders {
            sender.join().expect("the sender returns");
        }
        assert_eq!(model.drain(seen), 2, "a wake was lost");
    });
}

/// The loop polls, then goes to sleep if nothing is queued, while a thread
/// sends and wakes. Either the poll saw the send, or the loop found the
/// task queued and did not sleep, or the wake found it asleep and wrote to
/// the self-pipe: a loop never sleeps through a wake.
#[test]
fn a_wake_while_the_loop_goes_to_sleep_interrupts_it() {
    loom::model(|| {
        let model = Model::new();
        model.wake();
        let sender = {
            let model = model.clone();
            thread::spawn(move || model.send_and_wake())
        };
        let seen = model.turn().expect("the spawn queued the task");
        let slept = model.ready.prepare_to_sleep();
        sender.join().expect("the sender returns");
        let interrupted = model.interrupts.load(Ordering::Relaxed) == 1;
        if slept && !interrupted {
            // Asleep, and nothing will interrupt the wait: fine only if
            // there is nothing left to do.
            assert_eq!(seen, 1, "the loop sleeps through a wake");
            return;
        }
        model.ready.awake();
        assert_eq!(model.drain(seen), 1, "a wake was lost");
    });
}
