//! The race of the Twisted article: a lost update in single-threaded code,
//! and the keyed lock that prevents it.
//!
//! Kolya and his wife share a bank account, each with a card. His client
//! pays him; she buys him a present. Each payment is processed the way the
//! article's request `R1` is: read the balance, ask the slow remote service
//! (the bank, here the slow server) to authorise, write the new balance.
//! One thread, no parallelism, and still: both read the balance *before*
//! either writes, because the first one was suspended in its slow call
//! while the second ran. The second write overwrites the first, and one
//! payment vanishes.
//!
//! [`pay`] is that read-modify-write; [`pay_locked`] is the same call
//! inside the account's lock from a [`KeyedLocks`]; [`story`] runs both
//! payments against a slow server, with or without the lock
//! (`cargo run -p scheduler --example race`).
//!
//! # Deterministic
//!
//! The interleaving is forced, not hoped for: a fiber that sends a request
//! cannot continue before its reply, and the reply cannot be read before
//! the loop polls, which happens only after every ready fiber (the other
//! payment) has run up to its own request. So without the lock both always
//! read the same balance, whatever the latency or the machine's speed.
//!
//! Not here: the locks (`keyed.rs`).

use std::cell::Cell;
use std::io;
use std::net::SocketAddr;
use std::rc::Rc;

use testbed::conn::Conn;
use testbed::outcome::{Failure, Outcome};
use testbed::protocol::{ItemId, Phases};
use testbed::workload;

use crate::keyed::KeyedLocks;
use crate::scheduler::Scheduler;
use crate::stream::FiberTcpStream;

/// A bank account: the resource `A` of the article, which depends on
/// answers from the remote service.
#[derive(Debug, Default)]
pub struct Account {
    balance: Cell<i64>,
}

impl Account {
    /// An account holding `balance`.
    pub fn new(balance: i64) -> Account {
        Account {
            balance: Cell::new(balance),
        }
    }

    /// The balance now.
    pub fn balance(&self) -> i64 {
        self.balance.get()
    }
}

// ANCHOR: pay
/// Adds `amount` to the account the racy way: read, call the slow service
/// (other fibers run during the call), write what was read plus `amount`.
/// The write is skipped if the service refuses.
pub fn pay(account: &Account, amount: i64, authorise: impl FnOnce() -> Outcome) -> Outcome {
    let balance = account.balance.get();
    let authorisation = authorise()?;
    account.balance.set(balance + amount);
    Ok(authorisation)
}
// ANCHOR_END: pay

// ANCHOR: pay_locked
/// [`pay`], holding the account's lock from before the read until after
/// the write, so a second payment on the same account waits its turn.
pub fn pay_locked(
    locks: &KeyedLocks<u64>,
    account_no: u64,
    account: &Account,
    amount: i64,
    authorise: impl FnOnce() -> Outcome,
) -> Outcome {
    let _locked = locks.lock(account_no);
    pay(account, amount, authorise)
}
// ANCHOR_END: pay_locked

/// Whether [`story`] takes the account's lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Locking {
    /// Both payments run [`pay`] as they come: the lost update.
    None,
    /// Both run [`pay_locked`] on the same account number.
    Keyed,
}

/// The two payments of the story, in order: Kolya's client pays him 1000,
/// his wife spends 600.
pub const PAYMENTS: [(&str, i64); 2] = [("the client pays Kolya", 1000), ("the iPad", -600)];

/// The account's number in the lock pool.
const ACCOUNT_NO: u64 = 7;

// ANCHOR: story
/// Runs both [`PAYMENTS`] on one account starting at 0, each in its own
/// fiber, each authorised by a two-phase request to the slow server at
/// `server` over its own connection. Returns the final balance; the right
/// one is 400.
///
/// # Errors
///
/// The scheduler failed, or a payment could not be authorised.
pub fn story(server: SocketAddr, locking: Locking) -> io::Result<i64> {
    let sched = Scheduler::new()?;
    let account = Rc::new(Account::new(0));
    let locks = Rc::new(KeyedLocks::new(&sched));
    let mut payments = Vec::new();
    for (n, (_, amount)) in PAYMENTS.into_iter().enumerate() {
        let (account, locks) = (account.clone(), locks.clone());
        let fiber_sched = sched.clone();
        let authorise = move || {
            let stream =
                FiberTcpStream::connect(&fiber_sched, server).map_err(|e| Failure::from_io(&e))?;
            let item = workload::item(ItemId(n as u64), 1);
            sync::request(&mut Conn::new(stream), &item, Phases::Two)
        };
        payments.push(sched.spawn(move || match locking {
            Locking::None => pay(&account, amount, authorise),
            Locking::Keyed => pay_locked(&locks, ACCOUNT_NO, &account, amount, authorise),
        })?);
    }
    sched.run().map_err(io::Error::other)?;
    for payment in payments {
        match payment.try_join() {
            Some(Ok(Ok(_))) => {}
            other => return Err(io::Error::other(format!("a payment failed: {other:?}"))),
        }
    }
    Ok(account.balance())
}
// ANCHOR_END: story
