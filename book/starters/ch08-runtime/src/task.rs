//! Tasks (stage 2): spawning one, polling it once, its waker, and its
//! handle (join, and abort: stage 6). A task is a boxed future in the
//! runtime's map, under an id; the ready queue holds ids.
#![allow(unused)]

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use runtime_spec::grade::Joined;

use crate::{BoxFuture, Inner, Spawner, lock};

/// The ready queue, shared with every waker, on any thread.
pub(crate) struct ReadyQueue {
    pub(crate) ids: Mutex<VecDeque<usize>>,
    /// Rings the bell: one byte that wakes the selector.
    pub(crate) bell: UnixStream,
}

/// A spawned task.
pub(crate) struct Task {
    /// `None` while the loop polls it, and once it has ended.
    pub(crate) future: RefCell<Option<BoxFuture>>,
    /// How it ended, once it has.
    ended: Cell<Option<Joined>>,
    /// Whoever waits in [`JoinHandle`] for it to end.
    joiner: RefCell<Option<Waker>>,
    /// Its waker, made once.
    waker: Waker,
}

/// What a task's waker holds: which task, and the queue to put it in.
pub(crate) struct TaskWaker {
    pub(crate) id: usize,
    pub(crate) ready: Arc<ReadyQueue>,
}

/// A spawned task's handle: join it, or abort it. Dropping it lets the
/// task run on.
pub struct JoinHandle {
    id: usize,
    task: Rc<Task>,
    inner: Rc<Inner>,
}
impl Spawner {
    /// Starts `future` as a task; it first runs once the caller lets go.
    pub fn spawn(&self, future: impl Future<Output = ()> + 'static) -> JoinHandle {
        // TODO: where does a new task wait for its first poll, and what does its waker need to know?
        todo!("where does a new task wait for its first poll, and what does its waker need to know?")
    }
}

impl Inner {
    /// Polls task `id` once, if it has not ended; ends it if it is done.
    pub(crate) fn run_task(&self, id: usize) {
        // TODO: a task that has ended may still be woken: what do you poll then? And what if the poll panics, or the task aborts itself while it runs?
        todo!("a task that has ended may still be woken: what do you poll then? And what if the poll panics, or the task aborts itself while it runs?")
    }
}

impl Task {
    /// Records how it ended (the first time only) and wakes its joiner.
    pub(crate) fn end(&self, how: Joined) {
        if self.ended.get().is_none() {
            self.ended.set(Some(how));
            if let Some(joiner) = self.joiner.take() {
                joiner.wake();
            }
        }
    }
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // TODO: this may run on any thread, while the loop sleeps in the selector: how does the loop hear of it?
        todo!("this may run on any thread, while the loop sleeps in the selector: how does the loop hear of it?")
    }
}

impl JoinHandle {
    /// Ready with how the task ended, once it has.
    pub fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Joined> {
        // TODO: if the task has not ended, who will wake this waiter when it does?
        todo!("if the task has not ended, who will wake this waiter when it does?")
    }

    /// Cancels the task: its future is dropped now, and never polled again.
    pub fn abort(&self) {
        // TODO: what if the task has already ended, or is the one running right now?
        todo!("what if the task has already ended, or is the one running right now?")
    }
}
