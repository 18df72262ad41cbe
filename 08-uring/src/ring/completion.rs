//! Reading completions: each one finds its operation in the table, hands
//! its memory back to the caller, and says how it ended (finished, timed
//! out, cancelled, or its timeout refused).

use std::io;

use io_uring::cqueue;

use super::table::{Entry, TimerSaid};
use super::{Op, OpId, Ring, is_cancel, is_ecanceled};

/// A finished operation of a caller, with the memory it lent.
#[derive(Debug)]
pub struct Completion {
    /// Which operation.
    pub id: OpId,
    /// Who started it (the `owner` given at submission).
    pub owner: usize,
    /// The operation, its buffer back in the caller's hands.
    pub op: Op,
    /// The kernel's answer: a byte count, or the error (`ECANCELED` for an
    /// operation cancelled by its linked timeout or by a cancel request).
    /// When the kernel refused the linked timeout itself, the operation
    /// was cancelled with it before it could start: that is an error of
    /// its own, which names the refused timeout, not `ECANCELED`.
    pub result: io::Result<usize>,
    /// The operation's linked timeout fired and cancelled it: the peer was
    /// silent for the whole limit. (`ECANCELED` without this is a cancel
    /// request's doing.)
    pub timed_out: bool,
}

impl Completion {
    /// True when the operation was cancelled before it could finish, by
    /// its linked timeout or by a cancel request.
    pub fn cancelled(&self) -> bool {
        matches!(&self.result, Err(e) if e.raw_os_error() == Some(libc::ECANCELED))
    }

    /// True when the kernel refused the operation's linked timeout: the
    /// operation never ran, and no time limit was ever in force. Not the
    /// peer's doing, and not a timeout: a fault of the ring or the kernel.
    pub fn timeout_refused(&self) -> bool {
        matches!(&self.result, Err(e) if e.get_ref().is_some_and(|inner| inner.is::<TimeoutRefused>()))
    }
}

/// The error of an operation whose linked timeout the kernel refused
/// (with the kernel's own error): it cancelled the operation with it.
#[derive(Debug)]
pub struct TimeoutRefused(pub io::Error);

impl std::fmt::Display for TimeoutRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the kernel refused a linked timeout ({}) and cancelled its operation with it",
            self.0
        )
    }
}

impl std::error::Error for TimeoutRefused {}

impl Ring {
    /// Moves every completion that has arrived into `done`, with its
    /// memory: the caller's operations only (timeouts and cancels end
    /// here, their places freed).
    ///
    /// An operation cancelled while its linked timeout is still out is
    /// kept back until that timeout's own completion says why (it fired,
    /// or the kernel refused it): usually the same batch, at most a turn
    /// later.
    pub fn reap(&mut self, done: &mut Vec<Completion>) {
        let arrived: Vec<cqueue::Entry> = self.ring.completion().collect();
        for cqe in arrived {
            self.stats.completed += 1;
            let id = OpId(cqe.user_data());
            let result = match cqe.result() {
                n if n >= 0 => Ok(n as usize),
                n => Err(io::Error::from_raw_os_error(-n)),
            };
            match self.table.get_mut(id) {
                Some(Entry::Io {
                    timer: Some(_),
                    answered,
                    ..
                }) if is_cancel(&result) => *answered = Some(result),
                Some(Entry::Io { .. }) => self.complete(id, result, done),
                Some(Entry::Timeout { .. }) => self.timer_said(id, result, done),
                Some(Entry::Cancel) => drop(self.table.remove(id)),
                None => panic!("a completion for an operation not in the table: {id:?}"),
            }
        }
    }

    /// A linked timeout reported: note what it says on its operation, and
    /// hand that operation over if it was waiting for this.
    fn timer_said(&mut self, id: OpId, result: io::Result<usize>, done: &mut Vec<Completion>) {
        let Entry::Timeout { target, .. } = self.table.remove(id) else {
            unreachable!("timer_said is for timeouts")
        };
        let said = match result {
            Err(e) if e.raw_os_error() == Some(libc::ETIME) => {
                self.stats.timeouts_fired += 1;
                TimerSaid::Fired
            }
            // ECANCELED: its operation finished first (or was cancelled).
            Ok(_) => TimerSaid::Quiet,
            Err(e) if is_ecanceled(&e) => TimerSaid::Quiet,
            Err(e) => TimerSaid::Refused(e),
        };
        if let Some(Entry::Io {
            timer,
            answered,
            timer_said,
            ..
        }) = self.table.get_mut(target)
        {
            *timer = None;
            *timer_said = Some(said);
            if let Some(result) = answered.take() {
                self.complete(target, result, done);
            }
        }
    }

    /// Hands a caller's operation back, with what its timeout said.
    fn complete(&mut self, id: OpId, result: io::Result<usize>, done: &mut Vec<Completion>) {
        let Entry::Io {
            op,
            owner,
            timer_said,
            ..
        } = self.table.remove(id)
        else {
            unreachable!("complete is for a caller's operations")
        };
        let (result, timed_out) = match (result, timer_said) {
            (Err(e), Some(TimerSaid::Fired)) => (Err(e), true),
            (Err(_), Some(TimerSaid::Refused(why))) => {
                (Err(io::Error::other(TimeoutRefused(why))), false)
            }
            (result, _) => (result, false),
        };
        done.push(Completion {
            id,
            owner,
            op,
            result,
            timed_out,
        });
    }
}
