//! Helpers shared by the tests: a deadline for anything that could hang,
//! an embedded server, and small hand-written futures.

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::task::{Context, Poll};
use std::time::Duration;

use executor::{Executor, RunError};
use testbed::latency::LatencyModel;
use testbed::server::{ServerConfig, SlowServer};

/// How long a test's executor may run before the test calls it a hang.
pub const HANG: Duration = Duration::from_secs(20);

/// Runs `f` on a thread of its own, named `name`, and returns its result;
/// panics if it takes longer than [`HANG`] (the thread is left behind, and
/// the test fails instead of hanging the suite).
#[track_caller]
pub fn within<T: Send + 'static>(name: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (done_tx, done_rx) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            // The receiver is gone only if the test already failed.
            let _ = done_tx.send(f());
        })
        .expect("a test thread starts");
    match done_rx.recv_timeout(HANG) {
        Ok(value) => {
            thread.join().expect("the thread has sent its result");
            value
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{name}: still running after {HANG:?}"),
        // The thread panicked before sending: show its panic.
        Err(mpsc::RecvTimeoutError::Disconnected) => match thread.join() {
            Err(payload) => std::panic::resume_unwind(payload),
            Ok(()) => unreachable!("a thread that returns has sent its result"),
        },
    }
}

/// Runs `future` to the end on a fresh executor, within [`HANG`].
#[track_caller]
pub fn block_on<T, F>(make: impl FnOnce(&Executor) -> F + Send + 'static) -> T
where
    T: Send + 'static,
    F: Future<Output = T>,
{
    within("block_on", move || {
        let executor = Executor::new().expect("an executor");
        let future = make(&executor);
        match executor.block_on(future) {
            Ok(output) => output,
            Err(error) => panic!("the executor could not finish: {error}"),
        }
    })
}

/// Runs `future` on a fresh executor and returns how `block_on` ended.
pub fn try_block_on<T, F>(make: impl FnOnce(&Executor) -> F + Send + 'static) -> Result<T, String>
where
    T: Send + 'static,
    F: Future<Output = T>,
{
    within("try_block_on", move || {
        let executor = Executor::new().expect("an executor");
        let future = make(&executor);
        executor
            .block_on(future)
            .map_err(|e: RunError| e.to_string())
    })
}

/// An embedded slow server answering every line after `latency`.
pub fn server(latency: Duration) -> SlowServer {
    SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(latency),
        ..ServerConfig::default()
    })
    .expect("the embedded server starts")
}

/// A future that is pending forever and keeps no waker: the classic bug
/// (a future that returns `Pending` without arranging to be woken).
pub struct Forgetful;

impl Future for Forgetful {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Pending
    }
}
