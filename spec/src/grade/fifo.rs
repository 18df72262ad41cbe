//! A one-permit semaphore that hands its permit over in FIFO order, built
//! from wakers alone: the suite's semaphore and lock for a learner's
//! runtime, which then needs nothing but working wakers to run them.
//!
//! On release the permit goes straight to the first waiter (it is never
//! free in between, so nobody can overtake the queue), and a waiter that
//! is dropped while queued, or after it was handed the permit but before
//! it took it, passes its turn on.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::rc::Rc;
use std::task::{Poll, Waker};

/// The semaphore (clones share it).
#[derive(Debug, Clone, Default)]
pub struct Fifo(Rc<RefCell<State>>);

#[derive(Debug, Default)]
struct State {
    /// Someone holds the permit, or has been handed it.
    held: bool,
    /// Queued waiters: ticket and waker.
    waiters: VecDeque<(u64, Waker)>,
    /// The waiter handed the permit, until it takes it.
    handed: Option<u64>,
    next_ticket: u64,
}

impl State {
    /// Gives the permit to the first waiter, or frees it.
    fn pass_on(&mut self) {
        match self.waiters.pop_front() {
            Some((ticket, waker)) => {
                self.handed = Some(ticket);
                waker.wake();
            }
            None => self.held = false,
        }
    }
}

/// The permit: given back when dropped.
#[derive(Debug)]
pub struct FifoPermit(Fifo);

impl Drop for FifoPermit {
    fn drop(&mut self) {
        self.0.0.borrow_mut().pass_on();
    }
}

/// A queued waiter; dropped before it has the permit, it leaves the queue
/// (or passes on the permit it was handed).
struct Waiting {
    fifo: Fifo,
    ticket: Option<u64>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let Some(ticket) = self.ticket else { return };
        let mut state = self.fifo.0.borrow_mut();
        if state.handed == Some(ticket) {
            state.handed = None;
            state.pass_on();
        } else {
            state.waiters.retain(|(t, _)| *t != ticket);
        }
    }
}

impl Fifo {
    /// Waits for the permit, behind everyone already waiting.
    pub fn take(&self) -> impl Future<Output = FifoPermit> + use<> {
        let mut waiting = Waiting {
            fifo: self.clone(),
            ticket: None,
        };
        poll_fn(move |cx| {
            let mut state = waiting.fifo.0.borrow_mut();
            match waiting.ticket {
                None if !state.held => state.held = true,
                None => {
                    let ticket = state.next_ticket;
                    state.next_ticket += 1;
                    state.waiters.push_back((ticket, cx.waker().clone()));
                    waiting.ticket = Some(ticket);
                    return Poll::Pending;
                }
                Some(ticket) if state.handed == Some(ticket) => state.handed = None,
                Some(ticket) => {
                    if let Some(entry) = state.waiters.iter_mut().find(|(t, _)| *t == ticket) {
                        entry.1 = cx.waker().clone();
                    }
                    return Poll::Pending;
                }
            }
            drop(state);
            waiting.ticket = None;
            Poll::Ready(FifoPermit(waiting.fifo.clone()))
        })
    }
}
