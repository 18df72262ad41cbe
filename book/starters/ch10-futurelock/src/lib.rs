//! Chapter 10, exercise 4: futurelock, a future that holds its place in
//! line and is no longer polled.
//!
//! Workers share one permit (a [`Semaphore`] of one: one connection to a
//! database, one file to append to). A worker waits in line for it, and
//! while it waits it reports, every `tick`, that it is still waiting;
//! writing the report reads the shared state, so [`Board::report`] takes
//! the permit too, briefly. The first version:
//!
//! ```text
//! let mut acquire = board.lock.acquire();
//! loop {
//!     match board.handle.timeout(tick, &mut acquire).await {
//!         Ok(permit) => return board.work(who, work, permit).await,
//!         Err(_) => board.report(who).await,
//!     }
//! }
//! ```
//!
//! It ran for weeks, then one day everything stopped: no error, no CPU,
//! every worker waiting. A tick came while the worker was in line; it
//! went to report, and the report's `acquire` queued *behind the worker's
//! own*, which was still alive (the loop keeps it, to keep its place) but
//! no longer polled. The holder released; the semaphore, first come first
//! served, handed the permit to that first `acquire`, which nobody polls.
//! The report waits for it for ever, and so does every worker behind.
//! Oxide named this *futurelock*: a future that owns a resource, or a
//! place in line for one, while the task that owns the future awaits
//! something else. 07's loop sees that no task can ever be woken and ends
//! the run with "stuck"; tokio would hang.
//!
//! The fix is not to give up the place in line at every tick (dropping
//! `acquire` and asking again sends the worker to the back, and the
//! permit no longer goes to the one that asked first), nor to stop
//! reporting. It is to await nothing that needs the permit while a future
//! that holds a place in line for it is alive and unpolled: count the
//! ticks while waiting, and write the reports once the permit is yours,
//! with [`Board::write`], which asks for no permit because it is given
//! one.
//!
//! [`Board`] is written; write [`take_turn`].
//!
//! A worker alone, with nobody in line before it:
//!
//! ```
//! use std::time::Duration;
//! use ch10_futurelock::{Board, take_turn};
//! use executor::Executor;
//!
//! let executor = Executor::new()?;
//! let board = Board::new(&executor.handle());
//! let (tick, work) = (Duration::from_millis(5), Duration::from_millis(1));
//! executor.block_on(take_turn(&board, "A", tick, work))?;
//! let log = ["A: waited 0 ticks", "A: got it", "A: done"];
//! assert_eq!(board.log(), log, "a free permit: no tick waited");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch10-futurelock");

use std::cell::RefCell;
use std::time::Duration;

use executor::{Handle, Permit, Semaphore};

#[cfg(test)]
mod tests;

/// The shared permit, and a log of what the workers did.
pub struct Board {
    /// The executor's handle, for timers.
    pub handle: Handle,
    /// The one permit, first come, first served.
    pub lock: Semaphore,
    log: RefCell<Vec<String>>,
}

impl Board {
    /// A board with one free permit and an empty log.
    pub fn new(handle: &Handle) -> Board {
        Board {
            handle: handle.clone(),
            lock: Semaphore::new(handle, 1),
            log: RefCell::new(Vec::new()),
        }
    }

    /// Notes that `who` still waits. Takes the permit for a moment, since
    /// the report reads the state the permit guards.
    pub async fn report(&self, who: &str) {
        let _permit = self.lock.acquire().await;
        self.log.borrow_mut().push(format!("{who}: still waiting"));
    }

    /// Writes `line` in the log, for the holder of `permit`.
    pub fn write(&self, permit: &Permit, line: String) {
        let _held = permit;
        self.log.borrow_mut().push(line);
    }

    /// Does `who`'s work with `permit`, for `work`, and gives it back.
    pub async fn work(&self, who: &str, work: Duration, permit: Permit) {
        self.log.borrow_mut().push(format!("{who}: got it"));
        self.handle.sleep(work).await;
        self.log.borrow_mut().push(format!("{who}: done"));
        drop(permit);
    }

    /// The log so far.
    pub fn log(&self) -> Vec<String> {
        self.log.borrow().clone()
    }
}

// ANCHOR: exercise
/// Waits in line for the permit, then does its work with it, after a
/// report of the ticks of `tick` it waited (`"A: waited 3 ticks"`).
pub async fn take_turn(board: &Board, who: &str, tick: Duration, work: Duration) {
    // TODO: while a tick is handled, who polls the `acquire` that holds your place in line, and what may you await meanwhile?
    todo!("while a tick is handled, who polls the `acquire` that holds your place in line, and what may you await meanwhile?")
}
// ANCHOR_END: exercise
