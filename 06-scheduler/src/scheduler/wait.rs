//! Waits and wake tickets: how a fiber stops until something happens, and
//! how whatever happens wakes exactly that wait.
//!
//! A fiber that only lets the others run first calls
//! [`Scheduler::yield_now`]. Otherwise it waits, in one of three ways: on I/O (`io.rs` builds
//! [`Scheduler::io_wait`] on [`Scheduler::block_on_io`]), on a timer
//! ([`Scheduler::sleep`]), or on someone else ([`Scheduler::block`], until
//! [`Scheduler::unblock`]). Each wait of each fiber has a [`WakeTicket`].
//! Whoever will end the wait (a lock's queue, a timer, a socket, another
//! thread) holds the ticket, and a ticket wakes only the wait it was taken
//! for: a timer that fires after the reply came, or an `unblock` that
//! arrives after a timeout, finds its wait over and does nothing. That is
//! what makes the primitives built on `block` (see `semaphore.rs`) simple:
//! a woken fiber never has to ask "was that for me?".
//!
//! Every wake-up, whatever its cause, goes through one function,
//! `State::wake`.
//!
//! Not here: the switch itself (`switch.rs`).

use std::time::{Duration, Instant};

use super::table::FiberId;
use super::{Scheduler, State};
use crate::heap::TimerId;

/// The right to end one wait of one fiber: what [`Scheduler::unblock`]
/// (or [`crate::Remote::unblock`], from another thread) needs.
///
/// Take it with [`Scheduler::ticket`] right before [`Scheduler::block`],
/// give it to whoever will wake you, then block. A ticket whose wait is
/// over wakes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WakeTicket {
    fiber: FiberId,
    /// Which of the fiber's waits: its count of waits when it was taken.
    wait: u64,
}

impl WakeTicket {
    /// The fiber that waits.
    pub fn fiber(&self) -> FiberId {
        self.fiber
    }
}

/// How a [`Scheduler::block`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// Someone called `unblock` with the ticket (or, for an I/O wait, the
    /// socket may be ready).
    Unblocked,
    /// The timeout passed first.
    TimedOut,
}

/// Why a fiber is resumed: the value its switch back to the scheduler
/// returns. (corosensei's `Input` type.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resume {
    /// First run, or after [`Scheduler::yield_now`].
    Ready,
    /// The socket it waited on may be ready.
    Io,
    /// Its timer fired first.
    TimedOut,
    /// [`Scheduler::unblock`] ended its wait.
    Unblocked,
}

/// What a waiting fiber waits for. The core needs to know only what could
/// end it, for deadlock detection: not which socket, nor which lock.
#[derive(Debug, Clone, Copy)]
pub(super) enum WaitOn {
    /// I/O: a peer can end it, so it is never stuck.
    Io,
    /// A timer, and nothing else.
    Sleep,
    /// Someone's `unblock`; the text says whose, for deadlock reports.
    Block(&'static str),
}

/// The record of a wait in progress.
#[derive(Debug)]
pub(super) struct Wait {
    pub(super) on: WaitOn,
    pub(super) timer: Option<TimerId>,
}

impl Scheduler {
    /// Goes to the back of the ready queue, letting every other ready fiber
    /// run first (the source article's `yield`). The loop polls for I/O at least
    /// every `TURN_BUDGET` switches, so a fiber that computes for a long
    /// time and yields now and then does not starve the sockets.
    ///
    /// # Panics
    ///
    /// Outside a fiber.
    pub fn yield_now(&self) {
        let id = self.expect_fiber("yield_now");
        {
            let mut state = self.inner.state.borrow_mut();
            state.fibers.fiber_mut(id).resume = Resume::Ready;
            state.ready.push_back(id);
        }
        self.inner.yielder.suspend();
    }

    /// Suspends this fiber for `duration` (the source article's `kernel_sleep`); the
    /// others run meanwhile.
    ///
    /// # Panics
    ///
    /// Outside a fiber.
    pub fn sleep(&self, duration: Duration) {
        self.expect_fiber("sleep");
        self.wait(WaitOn::Sleep, Some(Instant::now() + duration));
    }

    /// Suspends this fiber until `deadline`; at once (through the loop,
    /// like a yield) if it has passed.
    ///
    /// A fiber that computes its deadline and then sleeps for the time
    /// left loses whatever time passes between the two readings of the
    /// clock (a preempted thread can lose milliseconds there): a timer
    /// set from that duration fires late, after timers whose deadlines
    /// came later. A deadline is the same number however late it arrives.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use scheduler::Scheduler;
    ///
    /// let sched = Scheduler::new()?;
    /// let deadline = Instant::now() + Duration::from_millis(5);
    /// let s = sched.clone();
    /// sched.spawn(move || s.sleep_until(deadline))?;
    /// sched.run()?;
    /// assert!(Instant::now() >= deadline, "never early");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Panics
    ///
    /// Outside a fiber.
    pub fn sleep_until(&self, deadline: Instant) {
        self.expect_fiber("sleep_until");
        self.wait(WaitOn::Sleep, Some(deadline));
    }

    /// The ticket of this fiber's next wait: hand it to whoever will
    /// [`unblock`](Self::unblock) you, then [`block`](Self::block) with it.
    ///
    /// # Panics
    ///
    /// Outside a fiber.
    pub fn ticket(&self) -> WakeTicket {
        let id = self.expect_fiber("ticket");
        self.inner.state.borrow_mut().next_ticket(id)
    }

    // ANCHOR: block
    /// Suspends this fiber until [`unblock`](Self::unblock) is called with
    /// `ticket`, or `timeout` passes (the source article's `block`). `blocker` says
    /// what the fiber waits on, for deadlock reports ("mutex").
    ///
    /// # Panics
    ///
    /// Outside a fiber, or if `ticket` is not this fiber's current one (it
    /// was taken by another fiber, or before another wait).
    pub fn block(
        &self,
        ticket: WakeTicket,
        blocker: &'static str,
        timeout: Option<Duration>,
    ) -> Woken {
        self.block_as(ticket, WaitOn::Block(blocker), timeout)
    }

    /// Ends the wait `ticket` names, making its fiber ready (the source article's
    /// `unblock`). Returns false if that wait is already over (it timed
    /// out, was unblocked before, or its fiber is gone).
    ///
    /// Call it from this scheduler's thread (any fiber, or outside fibers);
    /// other threads use [`crate::Remote::unblock`].
    pub fn unblock(&self, ticket: WakeTicket) -> bool {
        self.inner
            .state
            .borrow_mut()
            .wake(ticket, Resume::Unblocked)
    }
    // ANCHOR_END: block

    /// [`block`](Self::block), for a wait that a socket ends: the reactor
    /// holds `ticket`, and the loop wakes it when `poll` reports the socket.
    /// Deadlock detection counts such a fiber as one a peer can still wake.
    pub(crate) fn block_on_io(&self, ticket: WakeTicket, timeout: Option<Duration>) -> Woken {
        self.block_as(ticket, WaitOn::Io, timeout)
    }

    /// Is the wait `ticket` names still in progress?
    pub(crate) fn is_waiting(&self, ticket: WakeTicket) -> bool {
        self.inner.state.borrow().is_waiting(ticket)
    }

    fn block_as(&self, ticket: WakeTicket, on: WaitOn, timeout: Option<Duration>) -> Woken {
        assert_eq!(
            ticket,
            self.ticket(),
            "block: a ticket is for the fiber that took it, and its next wait only"
        );
        match self.wait(on, timeout.map(|d| Instant::now() + d)) {
            Resume::TimedOut => Woken::TimedOut,
            _ => Woken::Unblocked,
        }
    }

    /// Records that the running fiber waits on `on` (and a timer, if any),
    /// then switches away until the wait ends. Returns how it ended.
    pub(super) fn wait(&self, on: WaitOn, deadline: Option<Instant>) -> Resume {
        {
            let mut state = self.inner.state.borrow_mut();
            let id = self.expect_fiber("wait");
            let ticket = state.next_ticket(id);
            let timer = deadline.map(|at| state.timers.insert(at, ticket));
            if matches!(on, WaitOn::Io) {
                state.io_waiters += 1;
            }
            state.fibers.fiber_mut(id).wait = Some(Wait { on, timer });
        }
        self.inner.yielder.suspend()
    }
}

impl State {
    /// The ticket of fiber `id`'s next wait.
    fn next_ticket(&mut self, id: FiberId) -> WakeTicket {
        WakeTicket {
            fiber: id,
            wait: self.fibers.fiber_mut(id).wait_no,
        }
    }

    /// Is the wait `ticket` names still in progress?
    fn is_waiting(&self, ticket: WakeTicket) -> bool {
        self.fibers
            .get(ticket.fiber)
            .is_some_and(|fiber| fiber.wait_no == ticket.wait && fiber.wait.is_some())
    }

    // ANCHOR: wake
    /// Ends the wait `ticket` names, if it is still in progress: cancels its
    /// timer and queues the fiber with `why`. False if the wait is over.
    pub(super) fn wake(&mut self, ticket: WakeTicket, why: Resume) -> bool {
        let Some(fiber) = self.fibers.get_mut(ticket.fiber) else {
            return false;
        };
        if fiber.wait_no != ticket.wait {
            return false;
        }
        let Some(wait) = fiber.wait.take() else {
            return false;
        };
        fiber.wait_no += 1;
        fiber.resume = why;
        if let Some(timer) = wait.timer {
            // O(log n), thanks to the heap's index; a no-op if the timer is
            // what woke us (it is already out of the heap).
            self.timers.remove(timer);
        }
        if matches!(wait.on, WaitOn::Io) {
            // The reactor may still hold this ticket (a timeout or an
            // unblock ended the wait): it finds it stale at the next edge.
            self.io_waiters -= 1;
        }
        self.ready.push_back(ticket.fiber);
        true
    }
    // ANCHOR_END: wake
}
