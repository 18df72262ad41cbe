//! Timers: [`Handle::sleep`] and [`Handle::timeout`], on stage 6's timer
//! heap.
//!
//! A [`Sleep`] puts its deadline, with the waker of the task that polled
//! it, in the executor's [`TimerHeap`](scheduler::TimerHeap); the loop
//! sleeps in `epoll_wait` no longer than the earliest deadline, and wakes
//! the tasks whose deadlines have passed. The heap is chapter 6's (an
//! indexed binary heap, O(log n) removal from the middle), reused as it is:
//! fibers and futures then differ in one thing only, how a waiting
//! computation is kept (a stack, or a state machine), and not in how its
//! deadlines are.
//!
//! Removal matters here even more than for fibers: most timers never fire.
//! `timeout(limit, request)` sets one per request, and when the reply comes
//! first the [`Sleep`] inside is *dropped*, and its `Drop` takes the
//! deadline out of the heap. Dropping is how a future is cancelled, and
//! `Drop` is the only code that runs when it is: whatever a future has
//! registered, its `Drop` must unregister.
//!
//! Not here: the loop that fires the timers (`executor.rs`).

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use scheduler::TimerId;

use crate::handle::Handle;
use crate::poll_state::{HeldWaker, WaitKind};

/// A `timeout` ran out before its future finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no result within {0:?}")]
pub struct Elapsed(pub Duration);

/// A future that is ready at a deadline; dropped before, it takes its
/// timer out of the executor's heap.
///
/// # Examples
///
/// ```
/// use std::time::{Duration, Instant};
/// use executor::Executor;
///
/// let executor = Executor::new()?;
/// let handle = executor.handle();
/// let started = Instant::now();
/// executor.block_on(handle.sleep(Duration::from_millis(5)))?;
/// assert!(started.elapsed() >= Duration::from_millis(5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Sleep {
    handle: Handle,
    deadline: Instant,
    /// The timer in the heap, and the waker it will wake (to tell whether
    /// a later poll comes from another task). Kept as a [`HeldWaker`]: once
    /// the timer has fired, this clone wakes nobody, and a task that keeps
    /// the `Sleep` without polling it (the loser of a select) must still
    /// look stuck when nothing else can wake it (`stuck.rs`).
    timer: Option<(TimerId, HeldWaker)>,
}

impl Handle {
    /// A future ready `duration` from now.
    pub fn sleep(&self, duration: Duration) -> Sleep {
        self.sleep_until(Instant::now() + duration)
    }

    /// A future ready at `deadline`.
    pub fn sleep_until(&self, deadline: Instant) -> Sleep {
        Sleep {
            handle: self.clone(),
            deadline,
            timer: None,
        }
    }

    // ANCHOR: timeout
    /// Runs `future` for at most `limit`: its output, or [`Elapsed`] when
    /// the limit came first, and then `future` has been **dropped**, in
    /// the middle of whatever it was doing. That is the only way to stop a
    /// future, and what it leaves behind is the caller's problem (a socket
    /// with half a conversation on it: see `AsyncConn::begin`).
    ///
    /// The future it returns owns `future` and a `Sleep`, and borrows
    /// nothing from `self`: `+ use<F>` says so (it captures the type `F`
    /// and no lifetime), so the handle can be dropped while it runs.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use executor::{Elapsed, Executor};
    ///
    /// let executor = Executor::new()?;
    /// let handle = executor.handle();
    /// let never = std::future::pending::<()>();
    /// let limit = Duration::from_millis(5);
    /// assert_eq!(executor.block_on(handle.timeout(limit, never))?, Err(Elapsed(limit)));
    /// assert_eq!(executor.block_on(handle.timeout(limit, async { 7 }))?, Ok(7));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn timeout<F: Future>(
        &self,
        limit: Duration,
        future: F,
    ) -> impl Future<Output = Result<F::Output, Elapsed>> + use<F> {
        let mut sleep = self.sleep(limit);
        async move {
            let mut future = pin!(future);
            poll_fn(|cx| {
                // The future first: a reply that arrived with the deadline
                // still counts.
                if let Poll::Ready(output) = future.as_mut().poll(cx) {
                    return Poll::Ready(Ok(output));
                }
                match Pin::new(&mut sleep).poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(Elapsed(limit))),
                    Poll::Pending => Poll::Pending,
                }
            })
            .await
        }
    }
    // ANCHOR_END: timeout
}

impl Sleep {
    /// When it is ready.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Takes the timer out of the heap, if it is still there.
    fn cancel(&mut self) {
        if let Some((id, _)) = self.timer.take() {
            // `None` if it fired already: a stale id finds nothing.
            self.handle.shared.timers.borrow_mut().remove(id);
        }
    }
}

// ANCHOR: sleep
impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // Nothing in a `Sleep` is pinned: it is `Unpin`.
        let this = self.get_mut();
        if Instant::now() >= this.deadline {
            this.cancel();
            this.handle.progress();
            return Poll::Ready(());
        }
        let registered = matches!(&this.timer, Some((_, w)) if w.will_wake(cx.waker()));
        if !registered {
            // First poll, or polled by another task: (re)set the timer.
            this.cancel();
            let id = this
                .handle
                .shared
                .timers
                .borrow_mut()
                .insert(this.deadline, cx.waker().clone());
            let held = HeldWaker::new(this.handle.poll_state(), cx.waker(), WaitKind::Timer);
            this.timer = Some((id, held));
        }
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        // Cancelled (or done): a timer left in the heap would wake a task
        // for nothing, and keep the loop from ever seeing it is idle.
        self.cancel();
    }
}
// ANCHOR_END: sleep

impl std::fmt::Debug for Sleep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .field("set", &self.timer.is_some())
            .finish()
    }
}
