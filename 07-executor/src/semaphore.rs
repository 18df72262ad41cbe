//! A small FIFO semaphore for tasks: `--conns` of the stage.
//!
//! Chapter 7's semaphore, as a future. [`Semaphore::acquire`] returns an
//! [`Acquire`] future; it is ready with a [`Permit`] at once when a permit
//! is free and nobody queues before it, else the task waits in line. A
//! [`Permit`] is owned (`'static`): it moves into a spawned task and goes
//! back when it is dropped, however the task ends, panics included.
//!
//! Release *hands the permit over*: the count stays at zero and the first
//! waiter in line owns the permit before it even runs, so a task that
//! calls `acquire` in between cannot barge in (chapter 7's point, and the
//! test `a_released_permit_goes_to_the_waiter_not_to_a_newcomer`).
//!
//! # Cancellation
//!
//! A waiting [`Acquire`] can be dropped (a `timeout` around it fired). Its
//! `Drop` leaves the line; and if a permit had already been handed to it,
//! it hands that permit on, to the next in line. Forgetting that is a
//! classic async bug: a permit lost for good each time a waiter is
//! cancelled at the wrong moment, until the semaphore has none.
//!
//! Each permit remembers who took it, for the futurelock check: see
//! `permits.rs`.
//!
//! Not here: what the stage does with it (`stage.rs`).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use crate::handle::Handle;
use crate::permits::{Holder, State, Waiter};
use crate::poll_state::{HeldWaker, WaitKind};

/// Permits for tasks, handed out in the order they were asked for.
///
/// # Examples
///
/// Three tasks and one permit: they run one at a time, in order.
///
/// ```
/// use std::cell::RefCell;
/// use std::rc::Rc;
/// use std::time::Duration;
/// use executor::{Executor, Semaphore};
///
/// let executor = Executor::new()?;
/// let handle = executor.handle();
/// let one = Semaphore::new(&handle, 1);
/// let order = Rc::new(RefCell::new(Vec::new()));
/// let tasks: Vec<_> = (0..3)
///     .map(|n| {
///         let (one, order, handle) = (one.clone(), order.clone(), handle.clone());
///         executor.spawn(async move {
///             let _permit = one.acquire().await;
///             order.borrow_mut().push(n);
///             handle.sleep(Duration::from_millis(1)).await;
///         })
///     })
///     .collect();
/// executor.block_on(async {
///     for task in tasks {
///         task.await.unwrap();
///     }
/// })?;
/// assert_eq!(*order.borrow(), [0, 1, 2]);
/// assert_eq!(one.available(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Semaphore {
    state: Rc<RefCell<State>>,
    handle: Handle,
}

/// A future of a [`Permit`]. Dropping it leaves the line. It gives one
/// permit: polled again after it did, it panics.
pub struct Acquire {
    semaphore: Semaphore,
    /// Its place in line, once it waits.
    waiter: Option<u64>,
    /// It has returned its permit.
    done: bool,
}

/// One permit, given back when dropped.
pub struct Permit {
    semaphore: Semaphore,
    /// Its number among the holders, when a task took it.
    id: Option<u64>,
}

impl Semaphore {
    /// A semaphore of `permits` permits.
    pub fn new(handle: &Handle, permits: usize) -> Semaphore {
        let state = Rc::new(RefCell::new(State {
            permits,
            queue: VecDeque::new(),
            next_waiter: 0,
            holders: Vec::new(),
            next_permit: 0,
        }));
        handle.shared.semaphores.add(&state);
        Semaphore {
            state,
            handle: handle.clone(),
        }
    }

    /// A permit for the task being polled, taken out of `state`.
    fn permit(&self, state: &mut State) -> Permit {
        let id = self.handle.poll_state().current().map(|task| {
            let permit = state.next_permit;
            state.next_permit += 1;
            let poll = self.handle.shared.stats.get().polls;
            state.holders.push(Holder { permit, task, poll });
            permit
        });
        self.handle.progress();
        Permit {
            semaphore: self.clone(),
            id,
        }
    }

    /// Waits for a permit.
    pub fn acquire(&self) -> Acquire {
        Acquire {
            semaphore: self.clone(),
            waiter: None,
            done: false,
        }
    }

    /// Free permits now.
    pub fn available(&self) -> usize {
        self.state.borrow().permits
    }

    /// Tasks waiting in line.
    pub fn waiting(&self) -> usize {
        self.state.borrow().queue.len()
    }

    // ANCHOR: release
    /// Gives a permit back: to the first waiter that has none yet, or to the
    /// free count when nobody waits.
    fn release(&self) {
        let waker = {
            let mut state = self.state.borrow_mut();
            match state.queue.iter_mut().find(|w| !w.granted) {
                Some(waiter) => {
                    waiter.granted = true;
                    waiter.waker.take()
                }
                None => {
                    state.permits += 1;
                    None
                }
            }
        };
        // After the borrow ends: the woken task may not run now, but a
        // waker is foreign code and may reach this semaphore.
        if let Some(waker) = waker {
            waker.wake();
        }
    }
    // ANCHOR_END: release
}

// ANCHOR: acquire
impl Future for Acquire {
    type Output = Permit;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit> {
        // No field is pinned: `Acquire` is `Unpin`.
        let this = self.get_mut();
        // Without this, a second poll would look like a first one, and take
        // a second permit that nothing gives back.
        assert!(!this.done, "an Acquire polled after it returned its permit");
        let semaphore = &this.semaphore;
        let mut state = semaphore.state.borrow_mut();
        let Some(id) = this.waiter else {
            // First poll: take a free permit, unless others wait for one.
            if state.permits > 0 && state.queue.is_empty() {
                state.permits -= 1;
                this.done = true;
                return Poll::Ready(semaphore.permit(&mut state));
            }
            let id = state.next_waiter;
            state.next_waiter += 1;
            state.queue.push_back(Waiter {
                id,
                granted: false,
                waker: Some(HeldWaker::new(
                    semaphore.handle.poll_state(),
                    cx.waker(),
                    WaitKind::Permit,
                )),
                task: semaphore.handle.poll_state().current(),
            });
            this.waiter = Some(id);
            return Poll::Pending;
        };
        let at = state
            .queue
            .iter()
            .position(|w| w.id == id)
            .expect("a waiter stays in line until it takes its permit or is dropped");
        if state.queue[at].granted {
            state.queue.remove(at);
            this.waiter = None;
            this.done = true;
            return Poll::Ready(semaphore.permit(&mut state));
        }
        let waiter = &mut state.queue[at];
        if !waiter
            .waker
            .as_ref()
            .is_some_and(|w| w.will_wake(cx.waker()))
        {
            waiter.waker = Some(HeldWaker::new(
                semaphore.handle.poll_state(),
                cx.waker(),
                WaitKind::Permit,
            ));
        }
        Poll::Pending
    }
}
// ANCHOR_END: acquire

impl Drop for Acquire {
    fn drop(&mut self) {
        let Some(id) = self.waiter else { return };
        let left = {
            let mut state = self.semaphore.state.borrow_mut();
            let at = state.queue.iter().position(|w| w.id == id);
            at.and_then(|at| state.queue.remove(at))
        };
        // Handed a permit it will never take: pass it on, or it is lost.
        if left.is_some_and(|w| w.granted) {
            self.semaphore.release();
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            let mut state = self.semaphore.state.borrow_mut();
            if let Some(at) = state.holders.iter().position(|h| h.permit == id) {
                state.holders.swap_remove(at);
            }
        }
        self.semaphore.release();
    }
}

impl std::fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Semaphore")
            .field("available", &self.available())
            .field("waiting", &self.waiting())
            .finish()
    }
}

impl std::fmt::Debug for Permit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Permit")
    }
}
