//! The references: tokio's current-thread and multi-thread runtimes.
//!
//! An expectation that tokio does not meet, run after run, is a wrong
//! expectation: the suite's tests run every scenario on both flavours
//! twenty times.

use std::net::TcpStream;
use std::sync::Arc;
use std::time::Instant;

use tokio::io::{AsyncBufReadExt, BufReader};

use crate::futures_rt::{AsyncRt, Ctx, run_task};
use crate::io_pair::describe;
use crate::runner::Runtime;
use crate::script::{Scenario, Step};
use crate::trace::Recorder;

/// Tokio, one flavour.
#[derive(Debug, Clone, Copy)]
pub struct Tokio {
    /// The multi-thread runtime (four workers) rather than current-thread.
    pub multi_thread: bool,
}

/// The name of tokio's current-thread runtime in the table.
pub const TOKIO_CT: &str = "tokio-ct";
/// The name of tokio's multi-thread runtime in the table.
pub const TOKIO_MT: &str = "tokio-mt";

impl Runtime for Tokio {
    fn name(&self) -> &'static str {
        if self.multi_thread {
            TOKIO_MT
        } else {
            TOKIO_CT
        }
    }

    fn parallel(&self) -> bool {
        self.multi_thread
    }

    fn run(&self, scenario: &Scenario, rec: Arc<Recorder>) -> Result<(), String> {
        let mut builder = if self.multi_thread {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(4);
            b
        } else {
            tokio::runtime::Builder::new_current_thread()
        };
        let runtime = builder.enable_all().build().map_err(|e| e.to_string())?;
        let ctx = Ctx::new(TokioRt, rec, self.multi_thread);
        let steps: Arc<[Step]> = scenario.steps.clone().into();
        let io = scenario.uses_io();
        runtime.block_on(async move {
            if io {
                ctx.connect().map_err(|e| e.to_string())?;
            }
            run_task(ctx, "main", steps).await;
            Ok::<(), String>(())
        })?;
        // Dropping the runtime drops every task still pending.
        drop(runtime);
        Ok(())
    }
}

/// Tokio's primitives, found through its thread-local context.
#[derive(Debug, Clone, Copy)]
pub struct TokioRt;

impl AsyncRt for TokioRt {
    type Join = tokio::task::JoinHandle<()>;
    type Conn = BufReader<tokio::net::TcpStream>;
    type Sem = Arc<tokio::sync::Semaphore>;
    type Permit = tokio::sync::OwnedSemaphorePermit;
    type Lock = Arc<tokio::sync::Mutex<()>>;
    type Guard = tokio::sync::OwnedMutexGuard<()>;

    fn spawn(&self, ctx: Ctx<Self>, name: &'static str, steps: Arc<[Step]>) -> Self::Join {
        tokio::spawn(run_task(ctx, name, steps))
    }

    fn detach(&self, ctx: Ctx<Self>, steps: Arc<[Step]>) {
        drop(tokio::spawn(run_task(ctx, "detached", steps)));
    }

    async fn join(join: Self::Join) -> &'static str {
        match join.await {
            Ok(()) => "ok",
            Err(e) if e.is_panic() => "panicked",
            Err(_) => "cancelled",
        }
    }

    type Abort = tokio::task::AbortHandle;

    fn abort_handle(join: &Self::Join) -> Self::Abort {
        join.abort_handle()
    }

    fn abort(abort: &Self::Abort) {
        abort.abort();
    }

    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()> {
        tokio::time::sleep_until(deadline.into())
    }

    fn yield_now(&self) -> impl Future<Output = ()> {
        tokio::task::yield_now()
    }

    fn conn(&self, stream: TcpStream) -> Self::Conn {
        let _ = stream.set_nonblocking(true);
        let stream = tokio::net::TcpStream::from_std(stream).expect("inside the runtime");
        BufReader::new(stream)
    }

    async fn read_line(conn: &mut Self::Conn) -> String {
        let mut line = String::new();
        describe(conn.read_line(&mut line).await, &line)
    }

    fn semaphore(&self) -> Self::Sem {
        Arc::new(tokio::sync::Semaphore::new(1))
    }

    async fn acquire(sem: &Self::Sem) -> Self::Permit {
        sem.clone().acquire_owned().await.expect("never closed")
    }

    fn new_lock(&self) -> Self::Lock {
        Arc::new(tokio::sync::Mutex::new(()))
    }

    async fn lock(lock: &Self::Lock) -> Self::Guard {
        lock.clone().lock_owned().await
    }
}
