//! Cancelling tasks: taking them out of the executor and dropping their
//! futures, without letting a destructor that panics take anything else
//! down with it.
//!
//! Cancelling a future is dropping it: its destructors run where it stands
//! (chapter 8's cancellation table). Those destructors are the task's own
//! code, and can panic like its `poll` can, so they run inside
//! `catch_unwind` too, and a panic there ends the task the same way, as
//! [`JoinError::Panicked`] on its join and in
//! [`Executor::panics`](crate::Executor::panics).
//!
//! A task cannot be dropped while it is being polled (its future is out of
//! the table, on the loop's stack). That happens when a task aborts itself,
//! through a [`TaskSet`](crate::TaskSet) it belongs to: the abort marks
//! it, and the loop drops it when the poll returns `Pending`. If the poll
//! returns `Ready` instead, the task finished, and its output stands.
//!
//! Not here: polling (`handle.rs`), the sets that abort (`task_set.rs`).

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;

use crate::handle::{Handle, Shared};
use crate::join::{Fail, JoinError, TaskPanic};
use crate::lints::Spawned;
use crate::task::Task;
use crate::waker::TaskId;

impl Handle {
    // ANCHOR: abort
    /// Cancels tasks `ids`: drops their futures where they stand, and
    /// their `JoinHandle`s return [`JoinError::Cancelled`] (or
    /// [`JoinError::Panicked`], if a destructor panicked). A task that has
    /// ended already is skipped.
    ///
    /// Every task is out of the table before the first is dropped: a
    /// destructor (of a socket that deregisters, of a `TaskSet` inside
    /// that aborts its own children) finds the whole batch cancelled, and
    /// one that panics cannot leave the others running.
    pub(crate) fn abort(&self, ids: impl IntoIterator<Item = TaskId>) {
        let shared = &*self.shared;
        let taken: Vec<(TaskId, Task)> = {
            let mut tasks = shared.tasks.borrow_mut();
            ids.into_iter()
                .filter_map(|id| {
                    let task = tasks.get_mut(&id)?;
                    if task.future.is_none() {
                        // Being polled: it is aborting itself. The loop
                        // drops it when the poll returns.
                        task.aborted = true;
                        return None;
                    }
                    tasks.remove(&id).map(|task| (id, task))
                })
                .collect()
        };
        // With no borrow held: the destructors may use the executor.
        for (id, task) in taken {
            shared.cancel(id, task, JoinError::Cancelled);
        }
    }
    // ANCHOR_END: abort
}

impl Shared {
    /// Ends task `id`, already out of the table, with `why`: drops its
    /// future under `catch_unwind`, then ends its `JoinHandle`, with the
    /// destructor's panic if there was one.
    pub(crate) fn cancel(&self, id: TaskId, mut task: Task, why: JoinError) {
        let future = task.future.take();
        let join = task.join.take();
        let spawned = Spawned {
            task: id,
            at: task.spawned_at,
        };
        match panic::catch_unwind(AssertUnwindSafe(move || drop(future))) {
            Ok(()) => {
                if let Some(join) = join {
                    join.fail(why);
                }
            }
            Err(payload) => self.report_panic(spawned, payload.as_ref(), join),
        }
    }

    /// The poll of task `id` returned `Pending`: its future goes back in
    /// the table, unless the task aborted itself during the poll, in which
    /// case it is cancelled now.
    pub(crate) fn put_back(
        &self,
        id: TaskId,
        future: Pin<Box<dyn std::future::Future<Output = ()>>>,
    ) {
        let aborted = {
            let mut tasks = self.tasks.borrow_mut();
            match tasks.get_mut(&id) {
                Some(task) if !task.aborted => {
                    task.future = Some(future);
                    let spawned = Spawned {
                        task: id,
                        at: task.spawned_at,
                    };
                    let woken = task.arc.is_scheduled();
                    self.self_woken(spawned, woken, &mut task.self_wakes);
                    return;
                }
                Some(_) => tasks.remove(&id),
                // Nothing takes a task out of the table while it is polled;
                // were it gone, its future would still be dropped here.
                None => None,
            }
        };
        match aborted {
            Some(mut task) => {
                task.future = Some(future);
                self.cancel(id, task, JoinError::Cancelled);
            }
            None => {
                let _ = panic::catch_unwind(AssertUnwindSafe(move || drop(future)));
            }
        }
    }

    /// Task `id` panicked, in a poll or in a destructor: the task ends, its
    /// join says why, the executor lists it, and the others go on.
    pub(crate) fn report_panic(
        &self,
        spawned: Spawned,
        payload: &(dyn Any + Send),
        join: Option<Rc<dyn Fail>>,
    ) {
        let id = spawned.task;
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with a non-string payload".to_owned());
        self.lints.panicked(spawned, &message);
        let panic = TaskPanic { task: id, message };
        if let Some(join) = join {
            join.fail(JoinError::Panicked(panic.clone()));
        }
        self.panics.borrow_mut().push(panic);
        self.update_stats(|s| s.panics += 1);
    }
}

#[cfg(test)]
mod tests {
    use std::future::{Future, pending, ready};
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use crate::{Executor, JoinError};

    /// A destructor that panics.
    struct PanicsOnDrop;

    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            panic!("its destructor");
        }
    }

    #[test]
    fn an_aborted_task_whose_destructor_panics_ends_with_that_panic_on_its_join() {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let task = handle.spawn(async {
            let _bomb = PanicsOnDrop;
            pending::<()>().await;
        });
        // The task runs once, and waits.
        executor.block_on(ready(())).expect("the run ends");
        handle.abort([task.id()]);
        let joined = pin!(task).poll(&mut Context::from_waker(Waker::noop()));
        assert!(
            matches!(&joined, Poll::Ready(Err(JoinError::Panicked(p))) if p.message == "its destructor"),
            "{joined:?}"
        );
        assert_eq!(executor.panics().len(), 1);
        assert_eq!(executor.live_tasks(), 0);
    }
}
