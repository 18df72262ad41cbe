//! Timers (stage 3): sleeps, and the loop's part in ending them on time,
//! in deadline order, never early.

use std::cmp::Reverse;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use crate::{Inner, Spawner};

/// Ready at its deadline, never before.
pub struct Sleep {
    spawner: Spawner,
    deadline: Instant,
    /// Its id once it is in the timer heap.
    id: Option<usize>,
}

impl Spawner {
    /// Ready at `deadline`, never before.
    pub fn sleep_until(&self, deadline: Instant) -> Sleep {
        Sleep {
            spawner: self.clone(),
            deadline,
            id: None,
        }
    }
}

impl Inner {
    /// Wakes every sleep whose deadline has passed.
    pub(crate) fn fire_timers(&self) {
        // EXERCISE-BEGIN: which timers are due, and how do you reach them in deadline order without looking at the others?
        let now = Instant::now();
        loop {
            let due = {
                let mut timers = self.timers.borrow_mut();
                match timers.peek() {
                    Some(Reverse((at, _))) if *at <= now => timers.pop(),
                    _ => None,
                }
            };
            let Some(Reverse((_, id))) = due else { break };
            // A dropped sleep left its entry: nobody to wake.
            if let Some(waker) = self.sleepers.borrow_mut().remove(&id) {
                waker.wake();
            }
        }
        // EXERCISE-END
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // EXERCISE-BEGIN: how does a sleep get into the timer heap, and how does it know, when polled, that it has fired?
        let inner = self.spawner.inner.clone();
        let Some(id) = self.id else {
            // Even a sleep already due goes through the heap: it yields.
            let id = inner.next_id.replace(inner.next_id.get() + 1);
            inner.timers.borrow_mut().push(Reverse((self.deadline, id)));
            inner.sleepers.borrow_mut().insert(id, cx.waker().clone());
            self.id = Some(id);
            return Poll::Pending;
        };
        match inner.sleepers.borrow_mut().get_mut(&id) {
            Some(waker) => {
                waker.clone_from(cx.waker());
                Poll::Pending
            }
            None => Poll::Ready(()),
        }
        // EXERCISE-END
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        // EXERCISE-BEGIN: a sleep dropped before its deadline: what must its timer not do any more?
        if let Some(id) = self.id {
            self.spawner.inner.sleepers.borrow_mut().remove(&id);
        }
        // EXERCISE-END
    }
}
