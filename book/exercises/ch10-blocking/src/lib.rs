//! Chapter 10, exercise 1: slow work off the loop's thread.
//!
//! A task that hashes a large payload, or reads a file with `std::fs`,
//! holds the loop's only thread for as long as that takes: no other task
//! is polled, no timer fires, no socket is read. The report says so (every
//! timer late by the same amount) and the page shows it (a gap in the
//! loop's wake-ups as wide as the work).
//!
//! The cure is to run the work on a thread of its own and let the task
//! wait for its result like for anything else: return `Pending`, leave a
//! waker, be woken when the result is there. [`spawn_blocking`] does that
//! with two halves around one shared slot: a [`Worker`], which runs the
//! work on the other thread and delivers its result, and a [`Blocking`],
//! the future the task awaits. The slot is a `Mutex` over the result and
//! the waker, both at once, so that "is it there?" and "wake me when it
//! is" are one step for the task, and "here it is" and "whom do I wake?"
//! one step for the worker. Split either in two and the result can slip
//! in between: the task waits for a wake that has already happened.
//!
//! [`spawn_blocking`] and the slot are written; write [`Worker::run`] and
//! the poll of [`Blocking`].
//!
//! A handler that hashes a payload away from the loop, while the loop goes
//! on with its other tasks:
//!
//! ```
//! use ch10_blocking::{slow_hash, spawn_blocking};
//! use executor::Executor;
//!
//! let executor = Executor::new()?;
//! let payload = vec![7u8; 4096];
//! let expected = slow_hash(&payload, 10);
//! let hash = executor.block_on(spawn_blocking(move || slow_hash(&payload, 10)))?;
//! assert_eq!(hash?, expected, "the same hash, computed on another thread");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch10-blocking");

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

#[cfg(test)]
mod tests;

/// Work that did not give a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockingError {
    /// The work panicked; its panic's message.
    Panicked(String),
}

impl std::fmt::Display for BlockingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlockingError::Panicked(message) => write!(f, "the blocking work panicked: {message}"),
        }
    }
}

impl std::error::Error for BlockingError {}

/// What the two halves share: the result once there is one, and the waker
/// of the task that waits for it, under one lock.
type Slot<T> = Mutex<Contents<T>>;

/// The slot's contents: the result, and the waker of the waiting task.
type Contents<T> = (Option<Result<T, BlockingError>>, Option<Waker>);

/// The half that runs the work and delivers its result.
#[derive(Debug)]
pub struct Worker<T> {
    slot: Arc<Slot<T>>,
}

/// The half a task awaits: the work's result, or how it failed.
#[derive(Debug)]
pub struct Blocking<T> {
    slot: Arc<Slot<T>>,
}

/// A [`Worker`] and the [`Blocking`] it delivers to, around an empty slot.
pub fn pair<T>() -> (Worker<T>, Blocking<T>) {
    let slot = Arc::new(Mutex::new((None, None)));
    (Worker { slot: slot.clone() }, Blocking { slot })
}

/// Runs `work` on a thread of its own; await the [`Blocking`] for its
/// result. The loop's thread goes on polling other tasks meanwhile.
pub fn spawn_blocking<T, F>(work: F) -> Blocking<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (worker, blocking) = pair();
    std::thread::spawn(move || worker.run(work));
    blocking
}

/// The slot, locked. A thread that panicked while holding it left nothing
/// half-written (each side writes whole values), so a poisoned lock is
/// still good to use.
fn lock<T>(slot: &Slot<T>) -> MutexGuard<'_, Contents<T>> {
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A panic's message, when it has one (`panic!` with a string).
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_string()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic without a message".to_string()
    }
}

// ANCHOR: exercise
impl<T> Worker<T> {
    /// Runs `work` on the calling thread, puts its result (or its panic)
    /// in the slot, and wakes the task that waits for it, if any. The
    /// [`Blocking`] may be gone by then: nobody is told, and nothing fails.
    pub fn run(self, work: impl FnOnce() -> T) {
        // EXERCISE-BEGIN: how does a panic in `work` reach the task, and when may you call the waker: before the result is in, under the lock, after?
        let result = catch_unwind(AssertUnwindSafe(work))
            .map_err(|p| BlockingError::Panicked(panic_message(&*p)));
        let waker = {
            let mut slot = lock(&self.slot);
            slot.0 = Some(result);
            // Taken under the same lock as the result went in: a task that
            // looks now either finds the result or has left this waker.
            slot.1.take()
        };
        // Woken after the lock is released: a waker is foreign code, and
        // one that polls at once would find the slot still locked.
        if let Some(waker) = waker {
            waker.wake();
        }
        // EXERCISE-END
    }
}

impl<T> Future for Blocking<T> {
    type Output = Result<T, BlockingError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // EXERCISE-BEGIN: is the result there? If not, whom will the worker wake, and could the result come in between your look and your `Pending`?
        let mut slot = lock(&self.slot);
        if let Some(result) = slot.0.take() {
            return Poll::Ready(result);
        }
        // Still under the lock that found no result: the worker cannot
        // deliver in between. The latest waker, since the task may have
        // moved (a `race`, a `timeout`, another task).
        slot.1 = Some(cx.waker().clone());
        Poll::Pending
        // EXERCISE-END
    }
}
// ANCHOR_END: exercise

/// A CPU-bound hash of `payload`, `rounds` times over (FNV-1a): the kind
/// of work that takes milliseconds, holds its thread all along, and so
/// belongs off the loop's thread.
pub fn slow_hash(payload: &[u8], rounds: u32) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for round in 0..rounds {
        hash ^= u64::from(round);
        for &byte in payload {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}
