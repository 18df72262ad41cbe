//! Yielding (stage 7): a task lets the others go first, and the I/O and
//! the timers that are due.
#![allow(unused)]

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
        // TODO: a task that wakes itself at once goes before a socket that became readable meanwhile: where does its waker wait instead?
        todo!("a task that wakes itself at once goes before a socket that became readable meanwhile: where does its waker wait instead?")
    }
}
