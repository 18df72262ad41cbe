//! Timers: a heap of deadlines, and the wakers of the sleeps still alive.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use super::Fault;
use super::core::Core;

/// How far ahead `EarlyTimer` takes "now" to be: every timer is due at
/// the loop's next turn, so that a loaded machine cannot hide the fault.
const EARLY: Duration = Duration::from_secs(3600);

#[derive(Default)]
pub(super) struct Timers {
    heap: BinaryHeap<Reverse<(Instant, u64)>>,
    wakers: HashMap<u64, Waker>,
    next: u64,
}

/// "Now", as the fault sees it.
fn now(fault: Option<Fault>) -> Instant {
    let now = Instant::now();
    if fault == Some(Fault::EarlyTimer) {
        now + EARLY
    } else {
        now
    }
}

impl Timers {
    /// Wakes the sleeps that are due; how many.
    pub(super) fn fire(&mut self, fault: Option<Fault>) -> usize {
        let now = now(fault);
        let mut fired = 0;
        while let Some(Reverse((deadline, id))) = self.heap.peek().copied() {
            if deadline > now {
                break;
            }
            self.heap.pop();
            if let Some(waker) = self.wakers.remove(&id) {
                waker.wake();
                fired += 1;
            }
        }
        fired
    }

    /// Until the next deadline (as the fault sees it); `None` without
    /// timers.
    pub(super) fn next_wait(&self, fault: Option<Fault>) -> Option<Duration> {
        let Reverse((deadline, _)) = self.heap.peek()?;
        Some(deadline.saturating_duration_since(now(fault)))
    }

    pub(super) fn clear(&mut self) {
        self.heap.clear();
        self.wakers.clear();
    }
}

/// A sleep until `deadline`.
pub(super) struct Sleep {
    pub(super) core: Rc<Core>,
    pub(super) deadline: Instant,
    pub(super) id: Option<u64>,
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let due = now(self.core.fault) >= self.deadline;
        // A first poll registers even when due: a sleep always goes
        // through the loop once, so a zero sleep yields.
        if due && (self.id.is_some() || self.core.has(Fault::ZeroSleepReady)) {
            if let Some(id) = self.id.take() {
                self.core.timers.borrow_mut().wakers.remove(&id);
            }
            return Poll::Ready(());
        }
        let mut timers = self.core.timers.borrow_mut();
        match self.id {
            Some(id) => {
                timers.wakers.insert(id, cx.waker().clone());
            }
            None => {
                let id = timers.next;
                timers.next += 1;
                timers.heap.push(Reverse((self.deadline, id)));
                timers.wakers.insert(id, cx.waker().clone());
                drop(timers);
                self.id = Some(id);
            }
        }
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(id) = self.id
            && !self.core.has(Fault::DroppedSleepFires)
        {
            self.core.timers.borrow_mut().wakers.remove(&id);
        }
    }
}
