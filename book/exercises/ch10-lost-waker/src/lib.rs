//! Chapter 10, exercise 2: an event that never loses a waiter.
//!
//! An [`Event`] is a flag that one side sets once ("the config is
//! loaded", "shut down now") and any number of tasks wait for, from any
//! thread. Its waiting is where a lost wake-up hides. A future that
//! returns `Pending` has promised that something will wake its task; if
//! it kept no waker, or kept the wrong one, nothing will, and the task
//! sleeps for ever: no error, no CPU, just a task that never finishes.
//! 07's loop notices when no waker of a waiting task is held anywhere,
//! and ends the run with "stuck" instead of hanging; tokio would hang.
//!
//! The wrong waker is the subtle case. A future may be polled by one task
//! and later by another, or by the same task through a new waker: moved
//! into a `race`, wrapped in a `timeout`, handed to a spawned task. Each
//! poll brings the waker of *that* poll, and only the latest is sure to
//! reach the task that waits now.
//!
//! [`Wait`] keeps its place among the waiters by an id; its `Drop` (it
//! gave up: a `timeout` fired) takes its waker out. Write [`Event::set`]
//! and the poll of [`Wait`].
//!
//! A task waits while another thread sets the event:
//!
//! ```
//! use ch10_lost_waker::Event;
//! use executor::Executor;
//!
//! let executor = Executor::new()?;
//! let event = Event::new();
//! let setter = std::thread::spawn({
//!     let event = event.clone();
//!     move || event.set()
//! });
//! executor.block_on(event.wait())?;
//! assert!(event.is_set(), "the wait ends once the event is set");
//! setter.join().expect("the setter's thread");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch10-lost-waker");

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

#[cfg(test)]
mod tests;

/// A flag set once, awaited by any number of tasks on any threads. Clones
/// share it.
#[derive(Debug, Clone, Default)]
pub struct Event {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    set: bool,
    /// The id the next waiter gets.
    next_id: u64,
    /// Each waiting [`Wait`]'s id, and the waker of its latest poll.
    waiting: Vec<(u64, Waker)>,
}

/// A future ready once its [`Event`] is set. Dropped before, it leaves
/// no waker behind.
#[derive(Debug)]
pub struct Wait {
    event: Event,
    /// Its id among the waiters, once it waits.
    id: Option<u64>,
}

impl Event {
    /// An event not set yet.
    pub fn new() -> Event {
        Event::default()
    }

    /// Whether it has been set.
    pub fn is_set(&self) -> bool {
        self.lock().set
    }

    /// A future ready once the event is set (at once, if it already is).
    pub fn wait(&self) -> Wait {
        Wait {
            event: self.clone(),
            id: None,
        }
    }

    /// Wakers held now: one per waiting [`Wait`].
    pub fn waiting(&self) -> usize {
        self.lock().waiting.len()
    }

    /// The state, locked. Nothing panics while holding it, but a waker is
    /// foreign code: a poisoned lock is still good to use.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

// ANCHOR: exercise
impl Event {
    /// Sets the event, for good, and wakes every task waiting for it, each
    /// once. Setting it again does nothing.
    pub fn set(&self) {
        // EXERCISE-BEGIN: which waiters must be woken, how many times each, and may a waker run while you hold the lock?
        let waiting = {
            let mut state = self.lock();
            state.set = true;
            std::mem::take(&mut state.waiting)
        };
        // After the lock is released: a waker is foreign code, and a task
        // woken on another thread may poll its `Wait` at once.
        for (_, waker) in waiting {
            waker.wake();
        }
        // EXERCISE-END
    }
}

impl Future for Wait {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // No field is pinned: `Wait` is `Unpin`.
        let this = self.get_mut();
        let mut state = this.event.lock();
        // EXERCISE-BEGIN: if the event is not set, whose waker must `set` find: this poll's, an earlier one's, or both?
        if state.set {
            // `set` took every waker; nothing of ours is left to remove.
            this.id = None;
            return Poll::Ready(());
        }
        let id = match this.id {
            Some(id) => id,
            None => {
                let id = state.next_id;
                state.next_id += 1;
                this.id = Some(id);
                id
            }
        };
        match state.waiting.iter_mut().find(|(waiter, _)| *waiter == id) {
            // Polled again: keep the latest waker (cloning only when it
            // would wake someone else), never a second entry.
            Some((_, waker)) => {
                if !waker.will_wake(cx.waker()) {
                    *waker = cx.waker().clone();
                }
            }
            None => state.waiting.push((id, cx.waker().clone())),
        }
        Poll::Pending
        // EXERCISE-END
    }
}
// ANCHOR_END: exercise

impl Drop for Wait {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.event
                .lock()
                .waiting
                .retain(|(waiter, _)| *waiter != id);
        }
    }
}
