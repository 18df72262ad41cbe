//! The broken runtime as the suite sees it: a [`Runtime`] for the
//! runner, an [`AsyncRt`] for the interpreter.

use std::future::{Future, poll_fn};
use std::net::TcpStream;
use std::rc::Rc;
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;

use runtime_spec::{AsyncRt, Ctx, Recorder, Runtime, Scenario, Step, run_task};

use super::Fault;
use super::core::Core;
use super::io::Conn;
use super::sync::{JoinState, Permit, Semaphore};
use super::time::Sleep;

/// The broken runtime, with one fault switched on, or none.
#[derive(Debug, Clone, Copy)]
pub struct Broken(pub Option<Fault>);

impl Runtime for Broken {
    fn name(&self) -> &'static str {
        "broken"
    }

    fn run(&self, scenario: &Scenario, rec: Arc<Recorder>) -> Result<(), String> {
        let core = Core::new(self.0).map_err(|e| e.to_string())?;
        let ctx = Ctx::new(BrokenRt(core.clone()), rec, false);
        if scenario.uses_io() {
            ctx.connect().map_err(|e| e.to_string())?;
        }
        let steps: Arc<[Step]> = scenario.steps.clone().into();
        let result = core.block_on(run_task(ctx, "main", steps));
        core.shut_down();
        let strange = core.strange_panics.take();
        result?;
        if strange.is_empty() {
            Ok(())
        } else {
            Err(format!("tasks panicked: {strange:?}"))
        }
    }
}

/// The interpreter's view of the broken runtime.
#[derive(Clone)]
pub(super) struct BrokenRt(Rc<Core>);

/// A task's handle; dropped unjoined, it detaches (or, under
/// `DetachCancels`, cancels).
pub(super) struct Join {
    core: Rc<Core>,
    id: u64,
    state: Rc<JoinState>,
    joined: bool,
}

impl Drop for Join {
    fn drop(&mut self) {
        if !self.joined && self.core.has(Fault::DetachCancels) {
            self.core.abort(self.id, &self.state);
        }
    }
}

impl AsyncRt for BrokenRt {
    type Join = Join;
    type Abort = (Rc<Core>, u64, Rc<JoinState>);
    type Conn = Conn;
    type Sem = Semaphore;
    type Permit = Permit;
    type Lock = Semaphore;
    type Guard = Permit;

    fn spawn(&self, ctx: Ctx<Self>, name: &'static str, steps: Arc<[Step]>) -> Join {
        let (id, state) = self.0.spawn(run_task(ctx, name, steps));
        Join {
            core: self.0.clone(),
            id,
            state,
            joined: false,
        }
    }

    fn detach(&self, ctx: Ctx<Self>, steps: Arc<[Step]>) {
        drop(self.spawn(ctx, "detached", steps));
    }

    async fn join(mut join: Join) -> &'static str {
        join.joined = true;
        join.state.clone().wait(&join.core.clone()).await
    }

    fn abort_handle(join: &Join) -> Self::Abort {
        (join.core.clone(), join.id, join.state.clone())
    }

    fn abort((core, id, state): &Self::Abort) {
        core.abort(*id, state);
    }

    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()> {
        Sleep {
            core: self.0.clone(),
            deadline,
            id: None,
        }
    }

    fn yield_now(&self) -> impl Future<Output = ()> {
        let core = self.0.clone();
        let mut yielded = false;
        poll_fn(move |cx| {
            if std::mem::replace(&mut yielded, true) {
                return Poll::Ready(());
            }
            core.defer(cx.waker());
            Poll::Pending
        })
    }

    fn conn(&self, stream: TcpStream) -> Conn {
        Conn::new(&self.0, stream)
    }

    async fn read_line(conn: &mut Conn) -> String {
        conn.read_line().await
    }

    fn semaphore(&self) -> Semaphore {
        Semaphore::new(&self.0, 1)
    }

    fn acquire(sem: &Semaphore) -> impl Future<Output = Permit> {
        sem.acquire()
    }

    fn new_lock(&self) -> Semaphore {
        Semaphore::new(&self.0, 1)
    }

    fn lock(lock: &Semaphore) -> impl Future<Output = Permit> {
        lock.acquire()
    }
}
