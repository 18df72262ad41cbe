//! A task's join state, and a FIFO semaphore (also the lock).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use super::Fault;
use super::core::Core;

/// How a task ended, and who waits to know.
#[derive(Default)]
pub(crate) struct JoinState {
    result: Cell<Option<&'static str>>,
    waiter: RefCell<Option<Waker>>,
}

impl JoinState {
    pub(super) fn finish(&self, how: &'static str) {
        if self.result.get().is_none() {
            self.result.set(Some(how));
            if let Some(waker) = self.waiter.take() {
                waker.wake();
            }
        }
    }

    pub(super) fn overwrite(&self, how: &'static str) {
        self.result.set(Some(how));
    }

    pub(super) fn is_done(&self) -> bool {
        self.result.get().is_some()
    }

    /// Waits for the end; `ok`, `panicked` or `cancelled`.
    pub(super) async fn wait(&self, core: &Core) -> &'static str {
        let mut first = true;
        std::future::poll_fn(|cx| {
            let skip = std::mem::take(&mut first) && core.has(Fault::JoinMissesEarlyResult);
            match self.result.get() {
                Some(how) if !skip => Poll::Ready(how),
                _ => {
                    *self.waiter.borrow_mut() = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }
}

struct Waiter {
    granted: Rc<Cell<bool>>,
    waker: Waker,
}

struct State {
    permits: usize,
    waiters: VecDeque<Waiter>,
}

/// A semaphore that hands its permit over in the order of the waits.
#[derive(Clone)]
pub(crate) struct Semaphore {
    core: Rc<Core>,
    state: Rc<RefCell<State>>,
}

/// A permit: gives itself back when dropped.
pub(crate) struct Permit(Semaphore);

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.release();
    }
}

impl Semaphore {
    pub(super) fn new(core: &Rc<Core>, permits: usize) -> Semaphore {
        Semaphore {
            core: core.clone(),
            state: Rc::new(RefCell::new(State {
                permits,
                waiters: VecDeque::new(),
            })),
        }
    }

    fn release(&self) {
        let mut state = self.state.borrow_mut();
        let next = if self.core.has(Fault::LifoSemaphore) {
            state.waiters.pop_back()
        } else {
            state.waiters.pop_front()
        };
        match next {
            Some(waiter) => {
                waiter.granted.set(true);
                if !self.core.has(Fault::ReleaseNoWake) {
                    waiter.waker.wake();
                }
            }
            None => state.permits += 1,
        }
    }

    pub(super) fn acquire(&self) -> Acquire {
        Acquire {
            sem: self.clone(),
            granted: None,
        }
    }
}

/// The future of [`Semaphore::acquire`].
pub(crate) struct Acquire {
    sem: Semaphore,
    granted: Option<Rc<Cell<bool>>>,
}

impl Future for Acquire {
    type Output = Permit;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit> {
        let sem = self.sem.clone();
        let mut state = sem.state.borrow_mut();
        match &self.granted {
            Some(granted) if granted.get() => {
                self.granted = None;
                return Poll::Ready(Permit(sem.clone()));
            }
            Some(granted) => {
                let granted = granted.clone();
                if let Some(w) = state
                    .waiters
                    .iter_mut()
                    .find(|w| Rc::ptr_eq(&w.granted, &granted))
                {
                    w.waker = cx.waker().clone();
                }
            }
            None if state.permits > 0 && state.waiters.is_empty() => {
                state.permits -= 1;
                return Poll::Ready(Permit(sem.clone()));
            }
            None => {
                let granted = Rc::new(Cell::new(false));
                state.waiters.push_back(Waiter {
                    granted: granted.clone(),
                    waker: cx.waker().clone(),
                });
                self.granted = Some(granted);
            }
        }
        Poll::Pending
    }
}

impl Drop for Acquire {
    fn drop(&mut self) {
        let Some(granted) = self.granted.take() else {
            return;
        };
        if self.sem.core.has(Fault::CancelledWaiterKeepsTurn) {
            return;
        }
        if granted.get() {
            // Handed the permit, never took it: pass it on.
            self.sem.release();
        } else {
            self.sem
                .state
                .borrow_mut()
                .waiters
                .retain(|w| !Rc::ptr_eq(&w.granted, &granted));
        }
    }
}
