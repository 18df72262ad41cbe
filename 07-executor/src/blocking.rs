//! [`Handle::spawn_blocking`]: work that blocks, on a pool of threads,
//! its result brought back to the loop by a waker.
//!
//! # Why the loop thread must not block
//!
//! Every task of an executor runs on one thread, the loop's, one poll at
//! a time. A poll that calls `std::thread::sleep`, reads a file, hashes a
//! megabyte or waits on a lock keeps that thread for as long as it takes,
//! and for all that time no other task is polled, no socket is read, no
//! timer fires: the loop cannot switch away from a poll that never
//! returns. A future is only cheap to wait on while it waits by returning
//! `Pending`. Work that cannot do that (a synchronous library, a system
//! call with no non-blocking form, a long computation) must run somewhere
//! else.
//!
//! # Why a pool
//!
//! "Somewhere else" is another thread. A thread per job would do, until a
//! burst of ten thousand jobs makes ten thousand threads; a *pool* keeps
//! [`BLOCKING_THREADS`] threads and queues the jobs beyond them. The pool
//! is rayon's (`rayon::ThreadPool`), built on first use and shared by every
//! executor of the process: jobs are closures, run on whichever pool
//! thread is free, in the order rayon picks.
//!
//! # How the result gets back
//!
//! The job and its [`BlockingHandle`] share a slot (an `Arc<Mutex<..>>`:
//! the one part of this crate a foreign thread writes). The handle is a
//! future: polled before the result is there, it leaves its task's
//! [`Waker`] in the slot and returns `Pending`. The pool thread, done,
//! puts the result in the slot and calls that waker, which queues the task
//! and, the loop being asleep in `epoll_wait`, writes to its self-pipe
//! (`notify.rs`): the loop wakes, polls the task, and the handle returns
//! the result. While the job runs, the loop does everything else.
//!
//! A waker kept in the slot is held by "someone else" for the stuck check
//! (`stuck.rs`): another thread may call it, so a task that waits on a
//! blocking job is never called stuck.
//!
//! A job that panics does not take the pool thread down: the panic is
//! caught and the handle returns [`BlockingError::Panicked`]. A handle
//! dropped before the end does not stop the job (a thread cannot be
//! stopped from outside); it only takes its waker back, and the result is
//! dropped when the job ends.
//!
//! Not here: the loop, the wakers (`executor.rs`, `waker.rs`).

use std::any::Any;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};

use crate::handle::Handle;

/// Threads of the blocking pool. Blocking work mostly waits (a disk, a
/// lock, another program), so more threads than cores pay; a bound keeps a
/// burst of jobs from making a thread each.
pub const BLOCKING_THREADS: usize = 8;

/// Why a blocking job gave no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlockingError {
    /// The job panicked, with this message; the pool thread lives on.
    #[error("the blocking job panicked: {0}")]
    Panicked(String),
}

/// What the job and its handle share.
struct Slot<T> {
    /// The job's result, once it ended.
    result: Option<Result<T, BlockingError>>,
    /// The waker of the task awaiting the handle, if it waits.
    waker: Option<Waker>,
}

type Shared<T> = Arc<Mutex<Slot<T>>>;

/// Locks the slot. Nothing panics while holding it (the job runs outside
/// the lock, and `wake` is called after it is released), so a poisoned
/// lock can only be an earlier bug's: its data is still whole.
fn lock<T>(slot: &Mutex<Slot<T>>) -> MutexGuard<'_, Slot<T>> {
    slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The process's blocking pool, built on first use.
fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(BLOCKING_THREADS)
            .thread_name(|n| format!("blocking-{n}"))
            .build()
            .expect("the blocking pool's threads start")
    })
}

impl Handle {
    /// Runs `work` on the blocking pool, off the loop's thread; the
    /// [`BlockingHandle`] is a future of its result. Meanwhile the loop
    /// goes on polling the other tasks.
    ///
    /// # Examples
    ///
    /// A job that blocks for 100 ms, and a task that ticks every 5 ms
    /// meanwhile: its five ticks come while the job sleeps.
    ///
    /// ```
    /// use std::time::Duration;
    /// use executor::Executor;
    ///
    /// let executor = Executor::new()?;
    /// let handle = executor.handle();
    /// let ticker = handle.clone();
    /// let ticks = executor.spawn(async move {
    ///     let mut ticks = 0;
    ///     for _ in 0..5 {
    ///         ticker.sleep(Duration::from_millis(5)).await;
    ///         ticks += 1;
    ///     }
    ///     ticks
    /// });
    /// let sum = executor.block_on(async move {
    ///     let job = handle.spawn_blocking(|| {
    ///         std::thread::sleep(Duration::from_millis(100));
    ///         (1..=10).sum::<u32>()
    ///     });
    ///     (job.await, ticks.is_finished())
    /// })?;
    /// assert_eq!(sum, (Ok(55), true), "the ticks ran during the job");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    // ANCHOR: spawn_blocking
    pub fn spawn_blocking<F, T>(&self, work: F) -> BlockingHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let shared: Shared<T> = Arc::new(Mutex::new(Slot {
            result: None,
            waker: None,
        }));
        let slot = shared.clone();
        // Handing work over is something done: not an idle poll.
        self.progress();
        pool().spawn(move || {
            let result = panic::catch_unwind(AssertUnwindSafe(work))
                .map_err(|payload| BlockingError::Panicked(message(payload.as_ref())));
            let waker = {
                let mut slot = lock(&slot);
                slot.result = Some(result);
                slot.waker.take()
            };
            // Outside the lock: the wake may run anything.
            if let Some(waker) = waker {
                waker.wake();
            }
        });
        BlockingHandle {
            shared,
            handle: self.clone(),
        }
    }
    // ANCHOR_END: spawn_blocking
}

/// The text of a panic's payload.
fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".to_owned())
}

/// A future of a blocking job's result. Dropping it lets the job run on
/// and throws its result away.
///
/// # Examples
///
/// A job that panics: the handle says so, and the loop goes on.
///
/// ```
/// use executor::{BlockingError, Executor};
///
/// let executor = Executor::new()?;
/// let handle = executor.handle();
/// let result = executor.block_on(handle.spawn_blocking(|| -> u32 { panic!("bad disk") }))?;
/// assert_eq!(result, Err(BlockingError::Panicked("bad disk".into())));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct BlockingHandle<T> {
    shared: Shared<T>,
    /// For the loop's count of polls that made progress.
    handle: Handle,
}

impl<T> BlockingHandle<T> {
    /// Has the job ended (and its result not yet been taken)?
    pub fn is_finished(&self) -> bool {
        lock(&self.shared).result.is_some()
    }
}

impl<T> Future for BlockingHandle<T> {
    type Output = Result<T, BlockingError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = lock(&self.shared);
        if let Some(result) = slot.result.take() {
            drop(slot);
            self.handle.progress();
            return Poll::Ready(result);
        }
        // The latest waker: a later poll may come from another task.
        match &mut slot.waker {
            Some(waker) => waker.clone_from(cx.waker()),
            None => slot.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

impl<T> Drop for BlockingHandle<T> {
    fn drop(&mut self) {
        // Nobody awaits the result any more: the pool thread must not keep
        // (or call) the waker of a task that has moved on.
        let waker = lock(&self.shared).waker.take();
        drop(waker);
    }
}

impl<T> std::fmt::Debug for BlockingHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockingHandle")
            .field("finished", &self.is_finished())
            .finish()
    }
}
