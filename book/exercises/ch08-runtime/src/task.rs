//! Tasks (stage 2): spawning one, polling it once, its waker, and its
//! handle (join, and abort: stage 6). A task is a boxed future in the
//! runtime's map, under an id; the ready queue holds ids.

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
        // EXERCISE-BEGIN: where does a new task wait for its first poll, and what does its waker need to know?
        let id = self.inner.next_id.replace(self.inner.next_id.get() + 1);
        let task = Rc::new(Task {
            future: RefCell::new(Some(Box::pin(future))),
            ended: Cell::new(None),
            joiner: RefCell::new(None),
            waker: Waker::from(Arc::new(TaskWaker {
                id,
                ready: self.inner.ready.clone(),
            })),
        });
        self.inner.tasks.borrow_mut().insert(id, task.clone());
        task.waker.wake_by_ref();
        JoinHandle {
            id,
            task,
            inner: self.inner.clone(),
        }
        // EXERCISE-END
    }
}

impl Inner {
    /// Polls task `id` once, if it has not ended; ends it if it is done.
    pub(crate) fn run_task(&self, id: usize) {
        // EXERCISE-BEGIN: a task that has ended may still be woken: what do you poll then? And what if the poll panics, or the task aborts itself while it runs?
        let Some(task) = self.tasks.borrow().get(&id).cloned() else {
            return;
        };
        // Out of the RefCell while it runs: the task may spawn, or abort itself.
        let Some(mut future) = task.future.take() else {
            return;
        };
        let polled = catch_unwind(AssertUnwindSafe(|| {
            future.as_mut().poll(&mut Context::from_waker(&task.waker))
        }));
        let how = match polled {
            Ok(Poll::Pending) if task.ended.get().is_none() => {
                *task.future.borrow_mut() = Some(future);
                return;
            }
            // It aborted itself: drop it, as abort would have.
            Ok(Poll::Pending) => Joined::Cancelled,
            Ok(Poll::Ready(())) => Joined::Finished,
            Err(_) => Joined::Panicked,
        };
        self.tasks.borrow_mut().remove(&id);
        drop(future);
        task.end(how);
        // EXERCISE-END
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
        // EXERCISE-BEGIN: this may run on any thread, while the loop sleeps in the selector: how does the loop hear of it?
        lock(&self.ready.ids).push_back(self.id);
        // A full bell is ringing already: a failed write loses nothing.
        let _ = (&self.ready.bell).write(&[1]);
        // EXERCISE-END
    }
}

impl JoinHandle {
    /// Ready with how the task ended, once it has.
    pub fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Joined> {
        // EXERCISE-BEGIN: if the task has not ended, who will wake this waiter when it does?
        match self.task.ended.get() {
            Some(how) => Poll::Ready(how),
            None => {
                *self.task.joiner.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            }
        }
        // EXERCISE-END
    }

    /// Cancels the task: its future is dropped now, and never polled again.
    pub fn abort(&self) {
        // EXERCISE-BEGIN: what if the task has already ended, or is the one running right now?
        if self.task.ended.get().is_some() {
            return;
        }
        self.inner.tasks.borrow_mut().remove(&self.id);
        self.task.end(Joined::Cancelled);
        // `None` if it is running (it aborts itself): `run_task` drops it.
        drop(self.task.future.take());
        // EXERCISE-END
    }
}
