//! A learner's runtime as the suite sees it: [`LearnerRt`] is its
//! [`AsyncRt`], [`Graded`] its [`Runtime`].
//!
//! What the learner does not write is built here from what they do:
//! reading a line is a non-blocking read that waits on
//! [`Learner::readable`] when the socket has nothing; the semaphore and the
//! lock are [`Fifo`] queues of wakers. Every future handed to the learner
//! is wrapped in [`Checked`], which records a poll after `Ready` in the
//! trace (a future may panic then, or do anything), so a runtime that polls
//! a finished task fails with a line that says so.

use std::future::Future;
use std::io::{self, Read};
use std::marker::PhantomData;
use std::net::TcpStream;
use std::os::fd::AsFd;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use testbed::testing::{Polls, WaitCost};

use super::fifo::{Fifo, FifoPermit};
use super::stages::Root;
use super::{Joined, Learner};
use crate::futures_rt::{AsyncRt, Ctx, run_task};
use crate::runner::Runtime;
use crate::script::{Scenario, Step};
use crate::trace::Recorder;

/// The name of a learner's runtime in a trace's failure.
pub const YOURS: &str = "your runtime";

/// A learner's runtime, held to the scenarios.
pub struct Graded<L> {
    /// Where set, the run's CPU time is measured too: more than a tenth of
    /// its wall-clock time is recorded as busy-waiting, naming this wait.
    quiet: Option<&'static str>,
    /// Where set, the root future instead of the scenario's script.
    root: Option<Root>,
    /// Where set, the most polls of the script's root.
    most_root_polls: Option<u64>,
    learner: PhantomData<fn() -> L>,
}

impl<L> Graded<L> {
    /// The runtime, with its CPU time measured where `quiet` names the
    /// wait, and `root` run instead of the script where set.
    /// `most_root_polls`, where set, bounds how often `block_on` may poll
    /// the script's root.
    pub fn new(
        quiet: Option<&'static str>,
        root: Option<Root>,
        most_root_polls: Option<u64>,
    ) -> Graded<L> {
        Graded {
            quiet,
            root,
            most_root_polls,
            learner: PhantomData,
        }
    }
}

impl<L: Learner> Runtime for Graded<L> {
    fn name(&self) -> &'static str {
        YOURS
    }

    fn run(&self, scenario: &Scenario, rec: Arc<Recorder>) -> Result<(), String> {
        let runtime = caught("Learner::new", L::new)?
            .map_err(|e| format!("the runtime could not start: {e}"))?;
        let rt = LearnerRt::<L> {
            spawner: runtime.spawner(),
            rec: rec.clone(),
        };
        let ctx = Ctx::new(rt, rec.clone(), false);
        if scenario.uses_io() {
            ctx.connect().map_err(|e| e.to_string())?;
        }
        let steps: Arc<[Step]> = scenario.steps.clone().into();
        let root_polls = Polls::new();
        let run = || match self.root {
            Some(root) => WaitCost::of(|| runtime.block_on(root(rec.clone()))),
            None => {
                let root = Checked::new(run_task(ctx, "main", steps), rec.clone());
                WaitCost::of(|| runtime.block_on(root_polls.count(root)))
            }
        };
        let ran = caught("block_on", run);
        // Dropping the runtime drops every task still pending. Apart from
        // the run: a Drop that panics while a panic unwinds would abort
        // the whole test binary.
        caught("dropping the runtime", move || drop(runtime))?;
        let ((), cost) = ran?;
        if let Some(wait) = self.quiet
            && !cost.is_quiet()
        {
            rec.log(cost.describe(wait));
        }
        if let Some(most) = self.most_root_polls
            && root_polls.get() > most
        {
            rec.log(format!(
                "block_on polled its future {} times while another task ran, where its \
                 waker was called at most {most}: poll it again only when its waker was called",
                root_polls.get()
            ));
        }
        Ok(())
    }
}

/// Runs `f`; a panic becomes an `Err` that says where and what it said
/// (a starter's unwritten body says which question to answer).
fn caught<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let said = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        format!("{what} panicked: {said}")
    })
}

/// A learner's primitives, and the ones built on them.
pub struct LearnerRt<L: Learner> {
    spawner: L::Spawner,
    rec: Arc<Recorder>,
}

impl<L: Learner> Clone for LearnerRt<L> {
    fn clone(&self) -> LearnerRt<L> {
        LearnerRt {
            spawner: self.spawner.clone(),
            rec: self.rec.clone(),
        }
    }
}

/// The scenario's connection: a non-blocking socket, what it has read of
/// a line so far, and the spawner to wait on.
pub struct LineConn<L: Learner> {
    stream: TcpStream,
    buffer: Vec<u8>,
    spawner: L::Spawner,
}

impl<L: Learner> AsyncRt for LearnerRt<L> {
    type Join = Rc<L::Task>;
    type Conn = LineConn<L>;
    type Sem = Fifo;
    type Permit = FifoPermit;
    type Lock = Fifo;
    type Guard = FifoPermit;
    type Abort = Rc<L::Task>;

    fn spawn(&self, ctx: Ctx<Self>, name: &'static str, steps: Arc<[Step]>) -> Self::Join {
        let task = Checked::new(run_task(ctx, name, steps), self.rec.clone());
        Rc::new(L::spawn(&self.spawner, task))
    }

    fn detach(&self, ctx: Ctx<Self>, steps: Arc<[Step]>) {
        let task = Checked::new(run_task(ctx, "detached", steps), self.rec.clone());
        drop(L::spawn(&self.spawner, task));
    }

    async fn join(join: Self::Join) -> &'static str {
        match L::join(&join).await {
            Joined::Finished => "ok",
            Joined::Panicked => "panicked",
            Joined::Cancelled => "cancelled",
        }
    }

    fn abort_handle(join: &Self::Join) -> Self::Abort {
        join.clone()
    }

    fn abort(abort: &Self::Abort) {
        L::abort(abort);
    }

    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()> {
        L::sleep_until(&self.spawner, deadline)
    }

    fn yield_now(&self) -> impl Future<Output = ()> {
        L::yield_now(&self.spawner)
    }

    fn conn(&self, stream: TcpStream) -> Self::Conn {
        stream
            .set_nonblocking(true)
            .expect("a fresh socket turns non-blocking");
        LineConn {
            stream,
            buffer: Vec::new(),
            spawner: self.spawner.clone(),
        }
    }

    async fn read_line(conn: &mut Self::Conn) -> String {
        loop {
            if let Some(end) = conn.buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = conn.buffer.drain(..=end).collect();
                return format!("got {}", String::from_utf8_lossy(&line).trim_end());
            }
            let mut chunk = [0; 256];
            match conn.stream.read(&mut chunk) {
                Ok(0) => return "eof".to_owned(),
                Ok(n) => conn.buffer.extend_from_slice(&chunk[..n]),
                // Nothing yet: this is where the learner's reactor comes in.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    L::readable(&conn.spawner, conn.stream.as_fd()).await
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return "reset".to_owned(),
                Err(e) => return format!("error: {e}"),
            }
        }
    }

    fn semaphore(&self) -> Self::Sem {
        Fifo::default()
    }

    async fn acquire(sem: &Self::Sem) -> Self::Permit {
        sem.take().await
    }

    fn new_lock(&self) -> Self::Lock {
        Fifo::default()
    }

    async fn lock(lock: &Self::Lock) -> Self::Guard {
        lock.take().await
    }
}

/// A future that records `a finished task was polled again` when it is
/// polled after it returned `Ready`, instead of whatever the future would
/// do (an `async fn` panics).
pub struct Checked<F> {
    inner: Pin<Box<F>>,
    done: bool,
    rec: Arc<Recorder>,
}

impl<F: Future<Output = ()>> Checked<F> {
    fn new(inner: F, rec: Arc<Recorder>) -> Checked<F> {
        Checked {
            inner: Box::pin(inner),
            done: false,
            rec,
        }
    }
}

impl<F: Future<Output = ()>> Future for Checked<F> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            self.rec.log("a finished task was polled again");
            return Poll::Pending;
        }
        let polled = self.inner.as_mut().poll(cx);
        self.done = polled.is_ready();
        polled
    }
}
