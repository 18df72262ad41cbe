//! Work with a deadline: a test whose code under test may hang runs that
//! code on a thread of its own, and fails at the deadline with a sentence
//! that names what never came, instead of hanging the suite (or being
//! stopped, unexplained, by a watchdog much later).

use std::time::Duration;

/// Runs `work` on a thread of its own and returns its result; panics if it
/// has not returned within `deadline` (the thread is left behind), so a
/// loop that hangs fails its test instead of hanging the suite. For work
/// that runs in the test's process: [`super::run_bin`] bounds a child.
#[track_caller]
pub fn within<T: Send + 'static>(
    deadline: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    within_or(deadline, "still running", work)
}

/// [`within`], whose failure says `never`, a sentence naming what never
/// came ("the waiter never got the lock"), followed by how long it waited.
#[track_caller]
pub fn within_or<T: Send + 'static>(
    deadline: Duration,
    never: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    // Named as the calling thread (libtest names a test's thread after
    // the test), so that a panic here is the test's, for
    // `crate::hints`, and says so in its message.
    let mut worker = std::thread::Builder::new();
    if let Some(name) = std::thread::current().name() {
        worker = worker.name(name.to_owned());
    }
    let worker = worker
        .spawn(move || {
            // The receiver is gone only if the test already failed.
            let _ = tx.send(work());
        })
        .expect("a thread for the bounded work");
    match rx.recv_timeout(deadline) {
        Ok(value) => value,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{never} after {deadline:?}")
        }
        // The work panicked before sending: show its panic.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(payload) => std::panic::resume_unwind(payload),
            Ok(()) => unreachable!("work that returns has sent its result"),
        },
    }
}
