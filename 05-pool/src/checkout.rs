//! Exclusive checkouts: the AnyEvent::Task model of a pool.
//!
//! Stage 4's pool hands each *item* to whichever connection is free. That
//! is enough for independent requests, and wrong for a conversation: a
//! transaction (`BEGIN`, `UPDATE`, `COMMIT`) must run its calls in order on
//! *one* connection, and nobody else's call may slip in between. AnyEvent::
//! Task's client answers with checkouts:
//!
//! - a checkout is a claim on one connection, granted in FIFO order when
//!   one is free, for as long as the checkout lives;
//! - calls made on a checkout queue up on it and run one after the other,
//!   in order, on its connection;
//! - a fatal error (a read timeout, a lost connection) *stays* on the
//!   checkout: every later call on it fails at once with the same error,
//!   instead of silently running on some other connection;
//! - when the checkout ends, its connection goes back to the pool, unless
//!   an error made it suspect.
//!
//! In Perl a checkout ends when its last reference goes away (reference
//! counting runs `DESTROY`). Rust says the same with ownership: a
//! [`Checkout`] is a handle owned by its caller, and dropping it releases
//! the claim. The handle cannot reach the pool from `drop` (the pool is
//! borrowed elsewhere), so it leaves its id in a list the pool shares with
//! it, and the pool finishes the release on its next call.
//!
//! Not here: granting connections and running calls ([`crate::pool`]).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;
use std::time::Instant;

use testbed::outcome::{Failure, Outcome};
use testbed::protocol::ItemId;
use testbed::workload::Item;

use crate::timers::TimerKey;
use select::slot::SlotId;

/// A checkout's number: checkouts are numbered in the order they were
/// asked for, so a lower id was asked for first (FIFO order is id order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CheckoutId(u64);

impl CheckoutId {
    /// The `n`th checkout a pool was asked for, counting from 0.
    pub(crate) fn new(n: u64) -> CheckoutId {
        CheckoutId(n)
    }

    /// Its number: how many checkouts of its pool were asked for before it.
    pub fn number(self) -> u64 {
        self.0
    }
}

impl fmt::Display for CheckoutId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "checkout {}", self.0)
    }
}

/// Ids of dropped handles, shared by a pool and its handles.
pub(crate) type Dropped = Rc<RefCell<Vec<CheckoutId>>>;

// ANCHOR: handle
/// A claim on one connection of a pool; calls made with it run in order on
/// that connection. Dropping it ends the claim: its connection returns to
/// the pool once the calls already made on it have finished.
#[must_use = "a checkout dropped at once is released at once: keep it to make calls"]
pub struct Checkout {
    id: CheckoutId,
    dropped: Dropped,
}

impl Drop for Checkout {
    fn drop(&mut self) {
        self.dropped.borrow_mut().push(self.id);
    }
}
// ANCHOR_END: handle

impl Checkout {
    pub(crate) fn new(id: CheckoutId, dropped: &Dropped) -> Checkout {
        Checkout {
            id,
            dropped: Rc::clone(dropped),
        }
    }

    /// This checkout's id (it appears in every [`FinishedCall`] of its
    /// calls).
    pub fn id(&self) -> CheckoutId {
        self.id
    }

    /// True when this handle belongs to the pool that shares `dropped`.
    pub(crate) fn belongs_to(&self, dropped: &Dropped) -> bool {
        Rc::ptr_eq(&self.dropped, dropped)
    }
}

impl fmt::Debug for Checkout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Checkout").field(&self.id.0).finish()
    }
}

/// A finished call, as the pool hands it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedCall {
    /// The item the call sent.
    pub item: ItemId,
    /// The checkout it was made on.
    pub checkout: CheckoutId,
    /// The connection (and the timeline lane) it ran on; `None` when it
    /// never ran: its checkout got no connection in time, or already
    /// carried a fatal error.
    pub slot: Option<SlotId>,
    /// When it was sent; when it was made, if it never ran.
    pub started: Instant,
    /// When its outcome was known: its reply read, its connection lost,
    /// its timeout fired. Stamped by the pool then, not when the caller
    /// gets it back from [`CheckoutPool::turn`](crate::CheckoutPool::turn):
    /// by then the connection may be carrying the next call, and a later
    /// stamp would overlap it on the connection's timeline lane.
    pub finished: Instant,
    /// What happened.
    pub outcome: Outcome,
}

/// Where a checkout stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Holds {
    /// In the FIFO queue, waiting for a connection; the timer is its
    /// checkout timeout.
    Waiting { timer: Option<TimerKey> },
    /// Holding this connection.
    Slot(SlotId),
    /// A fatal error happened; every call fails with it.
    Broken(Failure),
}

/// A call made on a checkout, not started yet.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub item: Item,
    /// When the call was made.
    pub made: Instant,
}

/// The pool's record of one checkout.
#[derive(Debug)]
pub(crate) struct CheckoutRecord {
    /// When it was asked for.
    pub asked: Instant,
    pub holds: Holds,
    /// Calls not started yet, in the order they were made.
    pub calls: VecDeque<Pending>,
    /// The handle was dropped: no more calls will come.
    pub released: bool,
    /// A call on it failed (any kind): its connection is suspect.
    pub errored: bool,
}

impl CheckoutRecord {
    pub fn new(asked: Instant) -> CheckoutRecord {
        CheckoutRecord {
            asked,
            holds: Holds::Waiting { timer: None },
            calls: VecDeque::new(),
            released: false,
            errored: false,
        }
    }
}

/// The failure a call gets when its checkout already carries `fatal`: the
/// same kind, so the report counts it the same way, and a detail that says
/// it did not even run.
pub(crate) fn inherited(fatal: &Failure) -> Failure {
    Failure::new(
        fatal.kind,
        format!("not sent: this checkout already failed ({})", fatal.detail),
    )
}

/// An outcome for a call that never ran.
pub(crate) fn never_ran(
    item: ItemId,
    checkout: CheckoutId,
    made: Instant,
    failure: Failure,
) -> FinishedCall {
    FinishedCall {
        item,
        checkout,
        slot: None,
        started: made,
        finished: Instant::now(),
        outcome: Err(failure),
    }
}
