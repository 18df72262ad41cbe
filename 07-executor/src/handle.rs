//! [`Handle`]: what futures keep to reach their executor, and the state
//! it shares with them: spawning a task, and one poll of it.
//!
//! [`Handle::spawn`] wraps the future in a [`Task`] (boxed, with its number
//! and its waker) and wakes it once, so that the loop polls it on its next
//! turn. From then on, only its waker brings it back.
//!
//! A poll takes the future *out* of the table and holds no borrow of the
//! executor while it runs: the future is about to use the executor through
//! its handle (spawn, park on a socket, set a timer). It runs inside
//! `catch_unwind`, so a panic ends this task and no other.
//!
//! Not here: the loop that decides when to poll (`executor.rs`).

use std::cell::{Cell, RefCell, RefMut};
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use scheduler::TimerHeap;
use testbed::turns::TurnLog;

use crate::join::{JoinError, JoinHandle, TaskPanic};
use crate::lints::{Lints, SELF_WAKES, Spawned};
use crate::order::Order;
use crate::permits::Registry;
use crate::poll_state::PollState;
use crate::reactor::Reactor;
use crate::record::Doing;
use crate::stats::Stats;
use crate::task::Task;
use crate::task_map::TaskMap;
use crate::waker::{TaskId, TaskWaker, Wakeups};

/// A cheap, clonable handle to an executor: what futures keep to spawn,
/// sleep, and register sockets. `Rc` inside, so it stays on the thread:
///
/// ```compile_fail,E0277
/// fn on_another_thread<T: Send>(_: T) {}
/// on_another_thread(executor::Executor::new()?.handle());
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Examples
///
/// A task that spawns another through its handle, and awaits it:
///
/// ```
/// use executor::Executor;
///
/// let executor = Executor::new()?;
/// let handle = executor.handle();
/// let answer = executor.block_on(async move {
///     let inner = handle.clone();
///     let outer = handle.spawn(async move { inner.spawn(async { 6 * 7 }).await });
///     outer.await
/// })?;
/// assert_eq!(answer??, 42);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Handle {
    pub(crate) shared: Rc<Shared>,
}

/// Everything an executor's handles share.
pub(crate) struct Shared {
    pub(crate) reactor: RefCell<Reactor>,
    pub(crate) timers: RefCell<TimerHeap<Waker>>,
    pub(crate) tasks: RefCell<TaskMap<Task>>,
    pub(crate) wakeups: Arc<Wakeups>,
    pub(crate) next_id: Cell<u64>,
    pub(crate) stats: Cell<Stats>,
    pub(crate) panics: RefCell<Vec<TaskPanic>>,
    /// The poll under way, and the wakers this crate's primitives hold
    /// (`poll_state.rs`).
    pub(crate) poll_state: Rc<PollState>,
    /// `block_on` is on the stack.
    pub(crate) running: Cell<bool>,
    /// The [`Executor`](crate::Executor) has been dropped: a spawn is refused.
    pub(crate) closed: Cell<bool>,
    /// FIFO, or drawn from a seed: the order a batch of woken tasks is
    /// polled in (`order.rs`).
    pub(crate) order: Order,
    /// Each wake-up of the loop, for the timeline page.
    pub(crate) turns: RefCell<TurnLog>,
    /// What the loop saw go wrong (`lints.rs`).
    pub(crate) lints: Lints,
    /// The semaphores made on this executor, for the futurelock check.
    pub(crate) semaphores: Registry,
    /// When the executor was made: a long poll's time is counted from it.
    pub(crate) created: Instant,
}

impl Handle {
    /// Tells the loop that the current poll did something (for
    /// [`Stats::idle_polls`]).
    pub(crate) fn progress(&self) {
        self.shared.poll_state.progress();
    }

    /// The reactor, for a socket's registration and parks.
    pub(crate) fn reactor(&self) -> RefMut<'_, Reactor> {
        self.shared.reactor.borrow_mut()
    }

    /// What the primitives that keep wakers count them in.
    pub(crate) fn poll_state(&self) -> &Rc<PollState> {
        &self.shared.poll_state
    }

    /// Starts `future` as a task, polled for the first time on the loop's
    /// next turn; the [`JoinHandle`] is a future of its output. Dropping
    /// the handle detaches the task: it runs on.
    ///
    /// A handle can outlive its [`Executor`](crate::Executor). A task
    /// spawned once the executor is dropped would never run: its future is
    /// dropped at once, and its `JoinHandle` returns
    /// [`JoinError::NoExecutor`].
    ///
    /// # Examples
    ///
    /// Spawned tasks run while the root future waits, each when it is
    /// woken; the `JoinHandle`s give their outputs:
    ///
    /// ```
    /// use executor::Executor;
    ///
    /// let executor = Executor::new()?;
    /// let handle = executor.handle();
    /// let tasks: Vec<_> = (1..=3).map(|n| handle.spawn(async move { n * 10 })).collect();
    /// let sum = executor.block_on(async move {
    ///     let mut sum = 0;
    ///     for task in tasks {
    ///         sum += task.await?;
    ///     }
    ///     Ok::<_, executor::JoinError>(sum)
    /// })??;
    /// assert_eq!(sum, 60);
    /// assert_eq!(executor.stats().spawned, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    // ANCHOR: spawn
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let shared = &self.shared;
        let id = TaskId(shared.next_id.get());
        shared.next_id.set(id.0 + 1);
        // The future, boxed, wrapped in one that hands its output to the
        // `JoinHandle`; then woken once, so that the loop polls it.
        let (task, state) = Task::new(id, future, shared.wakeups.clone());
        // Where `spawn` was called: the lints name the task by it.
        let task = task.spawned_at(std::panic::Location::caller());
        // Permits its spawner took in this poll are counted as its own.
        if let Some(parent) = shared.poll_state.current() {
            shared
                .semaphores
                .spawned(parent, id, shared.stats.get().polls);
        }
        if shared.closed.get() {
            // No loop will ever poll it: end it now, and say why.
            shared.cancel(id, task, JoinError::NoExecutor);
            return JoinHandle::new(id, state, shared.poll_state.clone());
        }
        {
            let _spawning = shared.wakeups.doing(Doing::Spawn);
            task.waker.wake_by_ref();
        }
        let live = {
            let mut tasks = shared.tasks.borrow_mut();
            tasks.insert(id, task);
            tasks.len()
        };
        shared.update_stats(|s| {
            s.spawned += 1;
            s.peak_tasks = s.peak_tasks.max(live);
        });
        JoinHandle::new(id, state, shared.poll_state.clone())
    }
    // ANCHOR_END: spawn
}

impl Shared {
    // ANCHOR: poll_task
    /// Polls task `id` once, if it still exists: a stale wake (of a task
    /// that finished) finds nothing and does nothing.
    pub(crate) fn poll_task(&self, id: TaskId) {
        let (mut future, waker, cause) = {
            let mut tasks = self.tasks.borrow_mut();
            let Some(task) = tasks.get_mut(&id) else {
                return;
            };
            let Some(future) = task.future.take() else {
                return;
            };
            let cause = task.arc.cause();
            // Before the poll: a wake during it must queue the task again.
            task.arc.unschedule();
            (future, task.waker.clone(), cause)
        };
        // No borrow is held across the poll: the task is about to use the
        // executor (spawn, park, sleep) through its handle.
        let polled = self.polled(
            id,
            cause,
            &waker,
            || {
                panic::catch_unwind(AssertUnwindSafe(|| {
                    future.as_mut().poll(&mut Context::from_waker(&waker))
                }))
            },
            |polled| matches!(polled, Ok(Poll::Ready(()))),
        );
        match polled {
            Ok(Poll::Pending) => self.put_back(id, future),
            Ok(Poll::Ready(())) => {
                let task = self.tasks.borrow_mut().remove(&id);
                if let Some(mut task) = task {
                    // Finished: its JoinHandle already has the output (an
                    // abort during this poll came too late to matter).
                    task.join = None;
                }
            }
            Err(payload) => {
                // The future's destructors run now; one that panics too is
                // not allowed to take the loop down with it.
                let _ = panic::catch_unwind(AssertUnwindSafe(move || drop(future)));
                let task = self.tasks.borrow_mut().remove(&id);
                let at = task.as_ref().and_then(|task| task.spawned_at);
                let join = task.and_then(|mut task| task.join.take());
                self.report_panic(Spawned { task: id, at }, payload.as_ref(), join);
            }
        }
    }
    // ANCHOR_END: poll_task

    /// Polls the root future once.
    pub(crate) fn poll_root<T>(
        &self,
        future: Pin<&mut impl Future<Output = T>>,
        cause: Option<u32>,
        waker: &Waker,
    ) -> Poll<T> {
        self.polled(
            TaskId::ROOT,
            cause,
            waker,
            || future.poll(&mut Context::from_waker(waker)),
            Poll::is_ready,
        )
    }

    // ANCHOR: polled
    /// Runs one poll of task `id` with `waker`, keeping the counters,
    /// telling the primitives which task is being polled, timing it for
    /// the long-poll lint and, when the tasks are recorded, recording it
    /// (`cause`: the wake that queued it; `ready`: did it end the task).
    fn polled<R>(
        &self,
        id: TaskId,
        cause: Option<u32>,
        waker: &Waker,
        poll: impl FnOnce() -> R,
        ready: impl FnOnce(&R) -> bool,
    ) -> R {
        self.poll_state.start(id, waker);
        let doing = self.wakeups.doing(Doing::Polling(id));
        let start = Instant::now();
        let result = poll();
        let end = Instant::now();
        drop(doing);
        let idle = !self.poll_state.end();
        self.update_stats(|s| {
            s.polls += 1;
            s.idle_polls += u64::from(idle);
        });
        let took = end.saturating_duration_since(start);
        if took >= self.lints.threshold() && self.lints.held(start, end) {
            let at = start.saturating_duration_since(self.created);
            self.lints.long_poll(self.spawned(id), took, at);
        }
        // The one branch a poll pays when nothing is recorded.
        if let Some(recorder) = self.wakeups.recorder() {
            recorder
                .log()
                .polled(id.0, start, end, cause, ready(&result));
        }
        result
    }
    // ANCHOR_END: polled

    /// A poll of task `id` returned `Pending`, its streak of self-wakes
    /// `streak` before it: counts one more if the poll woke the task
    /// itself, else starts over (`lints.rs`, [`SELF_WAKES`]).
    pub(crate) fn self_woken(&self, spawned: Spawned, woken: bool, streak: &mut u32) {
        if !woken {
            *streak = 0;
            return;
        }
        *streak = streak.saturating_add(1);
        if *streak >= SELF_WAKES {
            self.lints.self_wakes(spawned, *streak);
        }
    }

    /// The `block_on` future returned `Pending`: did it wake itself?
    pub(crate) fn root_pending(&self, root: &TaskWaker, streak: &mut u32) {
        let spawned = Spawned {
            task: TaskId::ROOT,
            at: None,
        };
        self.self_woken(spawned, root.is_scheduled(), streak);
    }

    /// Task `id` and where it was spawned, if it still exists.
    pub(crate) fn spawned(&self, id: TaskId) -> Spawned {
        let at = self
            .tasks
            .borrow()
            .get(&id)
            .and_then(|task| task.spawned_at);
        Spawned { task: id, at }
    }

    pub(crate) fn update_stats(&self, change: impl FnOnce(&mut Stats)) {
        let mut stats = self.stats.get();
        change(&mut stats);
        self.stats.set(stats);
    }
}
