//! Yielding (stage 7): a task lets the others go first, and the I/O and
//! the timers that are due.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::Spawner;

/// Pending once; its task goes after the I/O and timers of this turn.
pub struct YieldNow {
    spawner: Spawner,
    yielded: bool,
}

impl Spawner {
    /// Lets the other tasks, I/O and timers go first.
    pub fn yield_now(&self) -> YieldNow {
        YieldNow {
            spawner: self.clone(),
            yielded: false,
        }
    }
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // EXERCISE-BEGIN: a task that wakes itself at once goes before a socket that became readable meanwhile: where does its waker wait instead?
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        self.spawner
            .inner
            .yielded
            .borrow_mut()
            .push(cx.waker().clone());
        Poll::Pending
        // EXERCISE-END
    }
}
