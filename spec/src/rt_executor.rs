//! 07's executor: the same script, `.await`ed on its own primitives.
//!
//! With a seed, the executor polls each batch of woken tasks in an order
//! drawn from it ([`Executor::with_seed`]): the suite runs every scenario
//! under several seeds, so that an expectation that holds only in the
//! order tasks were woken is found, and the seed of a failure replays it.
//!
//! Its `JoinHandle` cannot abort; a [`TaskSet`] of one task can, so every
//! named task lives in a set of its own. 07 has no lock type: its
//! one-permit [`Semaphore`] is the lock. A line is read with
//! [`AsyncConn::recv`], so the peer writes SLOW/1 reply lines.

use std::cell::RefCell;
use std::future::poll_fn;
use std::net::TcpStream;
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use executor::{AsyncConn, Executor, Handle, JoinError, Permit, Semaphore, TaskSet};
use testbed::outcome::ErrorKind;

use crate::futures_rt::{AsyncRt, Ctx, run_task};
use crate::runner::Runtime;
use crate::script::{Scenario, Step};
use crate::trace::Recorder;

/// The name of 07's executor in the table.
pub const EXECUTOR: &str = "07-executor";

/// 07's `Executor`.
#[derive(Debug, Clone, Copy)]
pub struct Executor07 {
    /// `None`: woken tasks are polled in the order they were woken. A
    /// seed: each batch in an order drawn from it.
    pub seed: Option<u64>,
}

impl Runtime for Executor07 {
    fn name(&self) -> &'static str {
        EXECUTOR
    }

    fn seed(&self) -> Option<u64> {
        self.seed
    }

    fn run(&self, scenario: &Scenario, rec: Arc<Recorder>) -> Result<(), String> {
        let executor = match self.seed {
            None => Executor::new(),
            Some(seed) => Executor::with_seed(seed),
        }
        .map_err(|e| e.to_string())?;
        let rt = ExecutorRt(executor.handle());
        let ctx = Ctx::new(rt, rec, self.seed.is_some());
        if scenario.uses_io() {
            ctx.connect().map_err(|e| e.to_string())?;
        }
        let steps: Arc<[Step]> = scenario.steps.clone().into();
        let result = executor.block_on(run_task(ctx, "main", steps));
        // Dropping the executor drops every task still pending.
        drop(executor);
        result.map_err(|e| e.to_string())
    }
}

/// A task in a set of its own, so that it can be aborted, and the waker
/// of whoever joins it.
pub struct Joinable {
    set: RefCell<TaskSet<()>>,
    joiner: RefCell<Option<std::task::Waker>>,
}

/// 07's primitives, through its [`Handle`].
#[derive(Clone)]
pub struct ExecutorRt(Handle);

impl AsyncRt for ExecutorRt {
    type Join = Rc<Joinable>;
    type Conn = AsyncConn;
    type Sem = Semaphore;
    type Permit = Permit;
    type Lock = Semaphore;
    type Guard = Permit;

    fn spawn(&self, ctx: Ctx<Self>, name: &'static str, steps: Arc<[Step]>) -> Self::Join {
        let mut set = TaskSet::new(&self.0);
        set.spawn(run_task(ctx, name, steps));
        Rc::new(Joinable {
            set: RefCell::new(set),
            joiner: RefCell::new(None),
        })
    }

    fn detach(&self, ctx: Ctx<Self>, steps: Arc<[Step]>) {
        // 07's `JoinHandle`, dropped, detaches its task.
        drop(self.0.spawn(run_task(ctx, "detached", steps)));
    }

    async fn join(join: Self::Join) -> &'static str {
        // Borrowed for one poll at a time: the task may abort itself
        // through the same set meanwhile.
        let joined = poll_fn(|cx| {
            *join.joiner.borrow_mut() = Some(cx.waker().clone());
            let mut set = join.set.borrow_mut();
            pin!(set.join_next()).poll(cx)
        });
        match joined.await {
            Some(Ok(())) => "ok",
            Some(Err(JoinError::Panicked(_))) => "panicked",
            // An aborted set has no child left to join.
            Some(Err(_)) | None => "cancelled",
        }
    }

    type Abort = Self::Join;

    fn abort_handle(join: &Self::Join) -> Self::Abort {
        join.clone()
    }

    fn abort(abort: &Self::Abort) {
        abort.set.borrow_mut().abort_all();
        // `abort_all` forgets the child, and with it the joiner's waker.
        if let Some(joiner) = abort.joiner.borrow_mut().take() {
            joiner.wake();
        }
    }

    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()> {
        self.0.sleep_until(deadline)
    }

    fn yield_now(&self) -> impl Future<Output = ()> {
        crate::futures_rt::yield_once()
    }

    fn conn(&self, stream: TcpStream) -> Self::Conn {
        AsyncConn::from_std(&self.0, stream).expect("a fresh socket registers")
    }

    async fn read_line(conn: &mut Self::Conn) -> String {
        match conn.recv().await {
            Ok(reply) => format!("got {reply}"),
            Err(f) if f.detail.contains("reset") => "reset".to_owned(),
            Err(f) if f.kind == ErrorKind::Closed => "eof".to_owned(),
            Err(f) => format!("error: {}", f.detail),
        }
    }

    fn semaphore(&self) -> Self::Sem {
        Semaphore::new(&self.0, 1)
    }

    async fn acquire(sem: &Self::Sem) -> Self::Permit {
        sem.acquire().await
    }

    fn new_lock(&self) -> Self::Lock {
        Semaphore::new(&self.0, 1)
    }

    async fn lock(lock: &Self::Lock) -> Self::Guard {
        lock.acquire().await
    }
}
