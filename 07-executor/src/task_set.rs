//! Structured concurrency: a [`TaskSet`] owns the tasks it spawns.
//!
//! A [`JoinHandle`] dropped detaches its task: the task runs on, and
//! nobody waits for its result or hears of its panic but the executor's
//! list. That is how work leaks: a request whose caller gave up keeps its
//! connection and its permit until it ends by itself.
//!
//! A `TaskSet` ties its children's lives to its own, the way a scope ties
//! a thread's to a block (`std::thread::scope`), and like tokio's
//! `JoinSet`:
//!
//! - [`TaskSet::join_next`] gives each child's result as it ends, a panic
//!   included ([`JoinError::Panicked`]): no failure is lost;
//! - dropping the set **cancels** every child still running: its future is
//!   dropped where it stands, as a timeout drops a request. So a task that
//!   owns a set and is itself cancelled cancels its children, and theirs,
//!   all the way down.
//!
//! Not here: what "cancel" does to a future (its `Drop`s run: chapter 8's
//! cancellation table), the loop (`executor.rs`).

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;

use crate::handle::Handle;
use crate::join::{JoinError, JoinHandle};
use crate::waker::TaskId;

/// Tasks that end with the set: results as they come, and cancellation of
/// the rest when it is dropped.
///
/// # Examples
///
/// Three children; the first to finish is kept, and dropping the set
/// cancels the two others long before their timers fire. (Seconds apart,
/// not milliseconds: children that end in the same turn of the loop come
/// back in spawn order, and a loaded machine can put a few milliseconds
/// of timers in one turn.)
///
/// ```
/// use std::time::Duration;
/// use executor::{Executor, TaskSet};
///
/// let executor = Executor::new()?;
/// let handle = executor.handle();
/// let first = executor.block_on(async {
///     let mut set = TaskSet::new(&handle);
///     for ms in [3_000, 10, 2_000] {
///         let handle = handle.clone();
///         set.spawn(async move {
///             handle.sleep(Duration::from_millis(ms)).await;
///             ms
///         });
///     }
///     set.join_next().await
/// })?;
/// assert_eq!(first, Some(Ok(10)));
/// assert_eq!(executor.live_tasks(), 0, "the other two were cancelled");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
// ANCHOR: task_set
pub struct TaskSet<T> {
    handle: Handle,
    children: Vec<JoinHandle<T>>,
}

impl<T: 'static> TaskSet<T> {
    /// An empty set whose tasks run on `handle`'s executor.
    pub fn new(handle: &Handle) -> TaskSet<T> {
        TaskSet {
            handle: handle.clone(),
            children: Vec::new(),
        }
    }

    /// Spawns `future` as a child: it runs like any task, and is cancelled
    /// if the set is dropped before it ends.
    #[track_caller]
    pub fn spawn<F>(&mut self, future: F) -> TaskId
    where
        F: Future<Output = T> + 'static,
    {
        let child = self.handle.spawn(future);
        let id = child.id();
        self.children.push(child);
        id
    }

    /// Children whose result has not been taken yet.
    pub fn len(&self) -> usize {
        self.children.len()
    }

    /// No child left to join?
    pub fn is_empty(&self) -> bool {
        self.children.is_empty()
    }

    /// The result of a child that has ended, a panic included
    /// ([`JoinError::Panicked`]); `None` when no child is left. Children
    /// come back in the order they end, except that of several that ended
    /// since the last look, the one spawned first comes first.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        poll_fn(|cx| {
            if self.children.is_empty() {
                return Poll::Ready(None);
            }
            // Every child's handle keeps this task's waker: whichever ends
            // first wakes us. (A poll looks at all of them: fine for the
            // tens of children a set holds here; tokio keeps a list of the
            // ones that woke instead.)
            for i in 0..self.children.len() {
                if let Poll::Ready(result) = Pin::new(&mut self.children[i]).poll(cx) {
                    // `remove`, not `swap_remove`: the children stay in the
                    // order they were spawned, for the next look.
                    self.children.remove(i);
                    return Poll::Ready(Some(result));
                }
            }
            Poll::Pending
        })
        .await
    }
}

impl<T> TaskSet<T> {
    /// Cancels every child still running; their results are gone. Every
    /// child is taken out of the executor before the first is dropped, and
    /// a destructor that panics is caught (the panic is listed by
    /// [`Executor::panics`](crate::Executor::panics)): all of them are
    /// cancelled, whatever their destructors do. A child that calls this
    /// on its own set is cancelled when its poll returns `Pending` (if the
    /// poll returns `Ready`, it has finished).
    pub fn abort_all(&mut self) {
        let ids: Vec<TaskId> = self.children.drain(..).map(|child| child.id()).collect();
        self.handle.abort(ids);
    }
}

impl<T> Drop for TaskSet<T> {
    fn drop(&mut self) {
        // The set owns its children: they end with it.
        self.abort_all();
    }
}
// ANCHOR_END: task_set

impl<T> std::fmt::Debug for TaskSet<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskSet")
            .field("children", &self.children)
            .finish()
    }
}
