//! The executor: tasks, the ready queue, and the loop that polls them.
//!
//! A task is a future the executor owns, boxed, with a number and a waker.
//! The loop polls a task only when it has been woken: spawning wakes it
//! once, and after that only its waker can, from the reactor (a socket is
//! ready), the timer heap (a deadline passed), one of this crate's
//! primitives (a permit was released, a task finished) or another thread.
//!
//! # The loop
//!
//! [`Executor::block_on`] polls its own future (the "root") like a task
//! and turns the loop until that future is ready. One turn:
//!
//! 1. take every task woken so far, and poll each once, in the order they
//!    were woken (or, made with a seed, in an order drawn from it:
//!    `order.rs`); then the ones woken meanwhile (a task that finished woke
//!    the one waiting for its permit), and so on until none is queued, but
//!    for no more than `TURN_BUDGET` polls, so tasks that keep waking each
//!    other cannot starve the sockets;
//! 2. work out how long to sleep: not at all if a task is queued, until
//!    the earliest timer if there is one, else until an event;
//! 3. if nothing at all could wake a task (no socket wait, no timer, no
//!    waker held by anyone else), stop: the run is stuck (`stuck.rs`);
//! 4. sleep in `epoll_wait` (the reactor), then wake the tasks whose
//!    sockets are ready and the ones whose timers are due.
//!
//! # Architecture invariant
//!
//! The loop sleeps in exactly one place, the reactor's `epoll_wait`, and
//! a task must never block the thread: a future that calls
//! `std::thread::sleep` or a blocking `read` stops every task. The awaitable
//! versions are [`Handle::sleep`] and [`crate::AsyncConn`].
//!
//! # Panics
//!
//! A task's poll runs inside `catch_unwind`: a panic ends that task (its
//! [`JoinHandle`] returns [`JoinError::Panicked`], the executor lists it in
//! [`Executor::panics`]) and the others go on. A panic of the root future
//! is the caller's own, and goes on up through `block_on`, once the tasks
//! taken from the queue with it have been polled.
//!
//! Not here: spawning and one poll of a task (`handle.rs`), the wakers
//! (`waker.rs`), the sockets (`reactor.rs`), the check for a stuck run
//! (`stuck.rs`), the timer futures (`time.rs`), what the loop notices going
//! wrong (`lints.rs`) and its record of the tasks (`record.rs`).

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

use scheduler::TimerHeap;
use testbed::turns::TurnLog;

use crate::handle::{Handle, Shared};
use crate::join::{JoinError, JoinHandle, TaskPanic};
use crate::lints::Lints;
use crate::notify;
use crate::order::Order;
use crate::permits::Registry;
use crate::poll_state::PollState;
use crate::reactor::Reactor;
use crate::record::Doing;
use crate::stats::Stats;
use crate::stuck::{self, Stuck};
use crate::task_map::TaskMap;
use crate::waker::{TaskId, TaskWaker, Wakeups};

/// How many polls one turn may make before the loop looks at the sockets
/// and timers again, however many tasks are still queued: tasks that keep
/// waking each other must not keep the loop from the sockets forever.
/// Large enough that a burst of replies on hundreds of connections, and the
/// tasks they wake in turn, are served in one turn (stage 6's figure).
const TURN_BUDGET: usize = 1024;

/// Why [`Executor::block_on`] returned without its future's output.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Tasks wait and nothing can ever wake them.
    #[error("{0}")]
    Stuck(Stuck),
    /// `epoll_wait` failed.
    #[error("epoll_wait failed: {0}")]
    Io(#[from] io::Error),
    /// `block_on` was called while this executor was already running, from
    /// inside one of its tasks: the outer loop could never run again.
    #[error("block_on called from inside a task of the same executor")]
    Nested,
}

/// A one-thread executor. Not `Send`: it and its tasks live on the thread
/// that made it. Futures reach it through a [`Handle`].
///
/// ```compile_fail,E0277
/// fn on_another_thread<T: Send>(_: T) {}
/// on_another_thread(executor::Executor::new()?);
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// Dropping the executor drops every task still in it (their destructors
/// run: that is cancellation), and a [`JoinHandle`] of one of them then
/// returns [`JoinError::Cancelled`]. A [`Handle`] kept after that spawns
/// nothing: its tasks end at once with [`JoinError::NoExecutor`].
///
/// # Examples
///
/// Two tasks that sleep at once, joined from the root future: the run takes
/// one sleep, not two, and the loop polled each task only when its timer
/// woke it.
///
/// ```
/// use std::time::{Duration, Instant};
/// use executor::Executor;
///
/// let executor = Executor::new()?;
/// let handle = executor.handle();
/// let nap = |n: u32| {
///     let handle = handle.clone();
///     async move {
///         handle.sleep(Duration::from_millis(200)).await;
///         n
///     }
/// };
/// let (a, b) = (executor.spawn(nap(1)), executor.spawn(nap(2)));
/// let started = Instant::now();
/// let sum = executor.block_on(async move { a.await.unwrap() + b.await.unwrap() })?;
/// assert_eq!(sum, 3);
/// // One after the other, the two naps would take 400 ms.
/// assert!(started.elapsed() < Duration::from_millis(400), "the naps overlapped");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Executor {
    pub(crate) handle: Handle,
}

impl Executor {
    /// An executor with its own epoll instance and self-pipe, which polls
    /// woken tasks in the order they were woken.
    ///
    /// # Errors
    ///
    /// The kernel refused the epoll instance or the socket pair.
    pub fn new() -> io::Result<Executor> {
        Executor::build(None)
    }

    /// An executor that polls each batch of woken tasks in an order drawn
    /// from `seed` instead of the order they were woken: a test that runs
    /// its program under several seeds finds what works only in FIFO
    /// order, and the seed of a failure replays its order (`order.rs` says
    /// why the order matters).
    ///
    /// # Errors
    ///
    /// As [`Executor::new`].
    ///
    /// # Examples
    ///
    /// Three tasks spawned in turn, each noting its start: FIFO order
    /// starts them as spawned; a seed starts them in its own order, the
    /// same every time.
    ///
    /// ```
    /// use std::cell::RefCell;
    /// use std::rc::Rc;
    /// use executor::Executor;
    ///
    /// fn starts(executor: Executor) -> Vec<u32> {
    ///     let started = Rc::new(RefCell::new(Vec::new()));
    ///     for n in 0..3 {
    ///         let started = started.clone();
    ///         drop(executor.spawn(async move { started.borrow_mut().push(n) }));
    ///     }
    ///     executor.block_on(async {}).expect("nothing waits");
    ///     started.take()
    /// }
    /// assert_eq!(starts(Executor::new()?), [0, 1, 2]);
    /// let seeded = starts(Executor::with_seed(3)?);
    /// assert_eq!(seeded, starts(Executor::with_seed(3)?), "a seed replays its order");
    /// let mut orders = Vec::new();
    /// for seed in 0..8 {
    ///     orders.push(starts(Executor::with_seed(seed)?));
    /// }
    /// assert!(orders.iter().any(|o| o != &[0, 1, 2]), "eight seeds, one order: {orders:?}");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn with_seed(seed: u64) -> io::Result<Executor> {
        Executor::build(Some(seed))
    }

    /// The seed of [`Executor::with_seed`]; `None` in FIFO order.
    pub fn seed(&self) -> Option<u64> {
        self.handle.shared.order.seed()
    }

    fn build(seed: Option<u64>) -> io::Result<Executor> {
        let (notifier, notify_reader) = notify::pair()?;
        let shared = Shared {
            reactor: RefCell::new(Reactor::new(notify_reader)?),
            timers: RefCell::new(TimerHeap::new()),
            tasks: RefCell::new(TaskMap::default()),
            wakeups: Arc::new(Wakeups::new(notifier)),
            next_id: Cell::new(TaskId::ROOT.0 + 1),
            stats: Cell::new(Stats::default()),
            panics: RefCell::new(Vec::new()),
            poll_state: Rc::new(PollState::default()),
            running: Cell::new(false),
            closed: Cell::new(false),
            turns: RefCell::new(TurnLog::new()),
            order: Order::new(seed),
            lints: Lints::default(),
            semaphores: Registry::default(),
            created: Instant::now(),
        };
        Ok(Executor {
            handle: Handle {
                shared: Rc::new(shared),
            },
        })
    }

    /// A handle for futures to keep.
    pub fn handle(&self) -> Handle {
        self.handle.clone()
    }

    /// Spawns a task: [`Handle::spawn`].
    ///
    /// # Examples
    ///
    /// ```
    /// use executor::Executor;
    ///
    /// let executor = Executor::new()?;
    /// let task = executor.spawn(async { "spawned" });
    /// assert_eq!(executor.block_on(task)?, Ok("spawned"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.handle.spawn(future)
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        let shared = &self.handle.shared;
        let mut stats = shared.stats.get();
        stats.wakes = shared
            .wakeups
            .wakes
            .load(std::sync::atomic::Ordering::Relaxed);
        stats.wakes_coalesced = shared
            .wakeups
            .coalesced
            .load(std::sync::atomic::Ordering::Relaxed);
        stats.interrupts = shared
            .wakeups
            .interrupts
            .load(std::sync::atomic::Ordering::Relaxed);
        stats.waits = shared.reactor.borrow().waits;
        stats
    }

    /// Every task that panicked so far, in order: in a poll, or in a
    /// destructor as it was cancelled.
    pub fn panics(&self) -> Vec<TaskPanic> {
        self.handle.shared.panics.borrow().clone()
    }

    /// The loop's recorded turns so far: when each wait returned, how long
    /// it slept, the wakers its sockets woke, timers fired, tasks polled.
    pub fn turns(&self) -> TurnLog {
        self.handle.shared.turns.borrow().clone()
    }

    /// Tasks spawned and not finished.
    pub fn live_tasks(&self) -> usize {
        self.handle.shared.tasks.borrow().len()
    }

    /// Runs the loop until `future` is ready, polling it and every task
    /// that is woken meanwhile; returns its output. Tasks still pending
    /// then stay in the executor, for the next `block_on` (or its drop).
    ///
    /// # Errors
    ///
    /// - [`RunError::Stuck`] when tasks wait and nothing can wake them
    ///   (the tasks stay in the executor, and are dropped with it);
    /// - [`RunError::Io`] when `epoll_wait` fails;
    /// - [`RunError::Nested`] from inside a task of this executor.
    ///
    /// # Panics
    ///
    /// When `future` panics: its panic comes up through `block_on`, once
    /// the tasks queued with it have been polled (a task's panic does not:
    /// it ends that task alone). The executor can run again after.
    ///
    /// # Examples
    ///
    /// A root future that waits for a task that waits for nothing that
    /// could wake it: instead of sleeping forever, `block_on` says so.
    ///
    /// ```
    /// use executor::{Executor, RunError};
    ///
    /// let executor = Executor::new()?;
    /// assert_eq!(executor.block_on(async { 1 + 1 })?, 2);
    /// let never = executor.spawn(std::future::pending::<()>());
    /// let stuck = executor.block_on(never);
    /// assert!(matches!(stuck, Err(RunError::Stuck(_))), "{stuck:?}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    // ANCHOR: block_on
    pub fn block_on<F: Future>(&self, future: F) -> Result<F::Output, RunError> {
        let shared = &*self.handle.shared;
        if shared.running.replace(true) {
            return Err(RunError::Nested);
        }
        // Cleared however this returns, a panic of the root included.
        let _running = Running(&shared.running);
        let mut future = pin!(future);
        let root = TaskWaker::new(TaskId::ROOT, shared.wakeups.clone());
        let root_waker = Waker::from(root.clone());
        shared.start_root(&root_waker);
        let (mut ready, mut woken) = (Vec::new(), Vec::new());
        let mut root_streak = 0;
        loop {
            let mut polls = 0;
            while polls < TURN_BUDGET {
                shared.wakeups.take(&mut ready);
                if polls == 0 {
                    shared.start_turn(ready.len());
                }
                if ready.is_empty() {
                    break;
                }
                // FIFO unless the executor was made with a seed.
                shared.order.arrange(&mut ready);
                polls += ready.len();
                shared.turns.borrow_mut().ran(ready.len());
                let (mut output, mut root_panic) = (None, None);
                for &id in &ready {
                    if id != TaskId::ROOT {
                        shared.poll_task(id);
                        continue;
                    }
                    let cause = root.cause();
                    root.unschedule();
                    let polled = panic::catch_unwind(AssertUnwindSafe(|| {
                        shared.poll_root(future.as_mut(), cause, &root_waker)
                    }));
                    match polled {
                        Ok(Poll::Ready(value)) => output = Some(value),
                        Ok(Poll::Pending) => shared.root_pending(&root, &mut root_streak),
                        Err(payload) => root_panic = Some(payload),
                    }
                }
                // Only now, with the whole batch polled: the tasks after the
                // root in it were taken from the queue, and must not be lost.
                // The root's panic is the caller's, and goes on up.
                if let Some(payload) = root_panic {
                    panic::resume_unwind(payload);
                }
                if let Some(output) = output {
                    return Ok(output);
                }
            }
            shared.turn(&root, &mut woken)?;
        }
    }
    // ANCHOR_END: block_on
}

impl Drop for Executor {
    fn drop(&mut self) {
        let shared = &*self.handle.shared;
        // From now on a spawn is refused: no loop would ever poll the task.
        shared.closed.set(true);
        // The tasks' futures hold handles, and the handles hold the tasks:
        // break the cycle. Take them out first, since dropping a future may
        // use the executor (a socket deregisters, a permit wakes a waiter),
        // and cancel each as an abort does, a destructor's panic caught.
        let tasks = std::mem::take(&mut *shared.tasks.borrow_mut());
        for (id, task) in tasks {
            shared.cancel(id, task, JoinError::Cancelled);
        }
    }
}

/// Clears the running flag when `block_on` returns or unwinds.
struct Running<'a>(&'a Cell<bool>);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

impl Shared {
    /// Queues the `block_on` future for its first poll (a wake recorded
    /// as a spawn).
    fn start_root(&self, root_waker: &Waker) {
        let _starting = self.wakeups.doing(Doing::Spawn);
        root_waker.wake_by_ref();
    }

    /// A turn's first batch of `ready` tasks: the lints' baseline, and
    /// the counters when tasks are recorded.
    fn start_turn(&self, ready: usize) {
        self.lints.turn();
        self.count_turn(ready);
    }

    // ANCHOR: turn
    /// Steps 2 to 4 of a turn: sleep as long as nothing needs doing, then
    /// wake whoever the sockets and timers say.
    fn turn(&self, root: &Arc<TaskWaker>, woken: &mut Vec<Waker>) -> Result<(), RunError> {
        let next_timer = self.timers.borrow().peek_deadline();
        if next_timer.is_none() && self.reactor.borrow().parked() == 0 {
            // No timer, no socket wait: only a waker held elsewhere can
            // still wake a task. If there is none, waiting is forever.
            if let Some(stuck) = self.stuck(root) {
                return Err(RunError::Stuck(stuck));
            }
        }
        let timeout = if self.wakeups.prepare_to_sleep() {
            next_timer.map(|deadline| deadline.saturating_duration_since(Instant::now()))
        } else {
            Some(Duration::ZERO)
        };
        self.turns.borrow_mut().sleeping();
        let waited = self.reactor.borrow_mut().wait(timeout, woken);
        self.turns.borrow_mut().woke(woken.len());
        self.wakeups.awake();
        waited?;
        {
            let _io = self.wakeups.doing(Doing::Io);
            for waker in woken.drain(..) {
                waker.wake();
            }
        }
        if self.timers.borrow().is_empty() {
            return Ok(());
        }
        let _timers = self.wakeups.doing(Doing::Timer);
        let now = Instant::now();
        loop {
            // One at a time, so no borrow of the heap is held by a wake.
            let due = self.timers.borrow_mut().pop_due(now);
            let Some(waker) = due else { break };
            self.update_stats(|s| s.timers_fired += 1);
            self.turns.borrow_mut().timers(1);
            waker.wake();
        }
        Ok(())
    }
    // ANCHOR_END: turn

    /// The stuck check (`stuck.rs`) over the tasks and the root; a stuck
    /// run's lints (no waker, futurelock) are noted here.
    fn stuck(&self, root: &Arc<TaskWaker>) -> Option<Stuck> {
        let stuck = {
            let tasks = self.tasks.borrow();
            let waiting = std::iter::once((TaskId::ROOT, root))
                .chain(tasks.iter().map(|(&id, task)| (id, &task.arc)));
            stuck::stuck(&self.poll_state, waiting)?
        };
        // A wake that came from another thread just now: not stuck.
        if self.wakeups.any_ready() {
            return None;
        }
        for &(id, what) in &stuck.tasks {
            if what == stuck::NO_WAKER {
                self.lints.no_waker(self.spawned(id));
            }
        }
        for (waiter, holder) in self.semaphores.futurelocks() {
            let (waiter, holder) = (self.spawned(waiter), self.spawned(holder));
            self.lints.futurelock(waiter, holder, "a semaphore permit");
        }
        Some(stuck)
    }
}
