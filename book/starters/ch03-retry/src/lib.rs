//! Chapter 3, exercise 1: a new state, and a machine inside a machine.
//!
//! Some services answer `NAK` when they are briefly overloaded, and a client
//! may try the `HEAD` again before giving up. In the closure chain that is
//! one more closure nested in the first; in the enum it is a variant that
//! can lead back to itself, with a counter: [`Retrying::AwaitingAck`] holds
//! `retries_left`.
//!
//! Once the `HEAD` is accepted, the rest of the request is exactly stage 3's
//! [`Machine`], so [`Retrying`] does not copy it: it *contains* it
//! ([`Retrying::Then`]) and passes replies on. That is what an `async fn`
//! that awaits another `async fn` compiles to: the outer state machine has a
//! variant holding the inner one.
//!
//! (On the book's simulated server a retry does not help: its faults are a
//! fixed function of the item and the phase, so a `NAK`ed `HEAD` is `NAK`ed
//! again. The tests use scripted replies.)
//!
//! One `NAK`, one retry, then the plain request (the replies are scripted):
//!
//! ```
//! use ch03_retry::Retrying;
//! use roundrobin::Step;
//! use testbed::conn::Conn;
//! use testbed::testing::Script;
//!
//! let item = &testbed::workload::items(1, 1)[0];
//! let replies = format!("NAK busy\nOK\n200 {}\n", item.expected_result());
//! let mut conn = Conn::new(Script::new(replies));
//! let mut state = Retrying::start(&mut conn, item, 1)?;
//! let result = loop {
//!     match state.resume(&mut conn)? {
//!         Step::Next(next) => state = next,
//!         Step::Done(result) => break result,
//!     }
//! };
//! assert_eq!(result, item.expected_result(), "the answer, after one refusal");
//! assert_eq!(conn.get_ref().sent(), format!("HEAD 0\nHEAD 0\nBODY 0 {}\n", item.payload), "HEAD sent again after the refusal, then BODY");
//! # Ok::<(), testbed::outcome::Failure>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch03-retry");

use std::io::{Read, Write};

use roundrobin::continuation::PhaseResult;
use roundrobin::{Machine, Step};
use testbed::conn::Conn;
use testbed::outcome::Failure;
use testbed::protocol::{Reply, Request};
use testbed::workload::Item;

/// A two-phase request that sends its `HEAD` again after a `NAK`, up to a
/// number of times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Retrying {
    /// A `HEAD` is out; `retries_left` more may follow if it is refused.
    AwaitingAck {
        /// The item, for the next `HEAD` and the `BODY`.
        item: Item,
        /// How many more `HEAD`s may be sent after a `NAK`.
        retries_left: u32,
    },
    /// The `HEAD` was accepted: the plain machine does the rest.
    Then(Machine),
}

impl Retrying {
    /// Sends the first `HEAD` for `item`, allowing `retries` more.
    pub fn start<S: Read + Write>(
        conn: &mut Conn<S>,
        item: &Item,
        retries: u32,
    ) -> Result<Retrying, Failure> {
        conn.send(&Request::Head(item.id))?;
        Ok(Retrying::AwaitingAck {
            item: item.clone(),
            retries_left: retries,
        })
    }

    // ANCHOR: exercise
    /// Blocks for the reply this state waits for and handles it.
    pub fn resume<S: Read + Write>(self, conn: &mut Conn<S>) -> PhaseResult<Retrying> {
        // Replies for the inner machine come back wrapped in `Then`.
        let inner = |step: PhaseResult<Machine>| {
            step.map(|step| match step {
                Step::Next(machine) => Step::Next(Retrying::Then(machine)),
                Step::Done(result) => Step::Done(result),
            })
        };
        let reply = conn.recv()?;
        // TODO: which replies can a HEAD get, after which one may the request go round again, and who handles everything else?
        todo!("which replies can a HEAD get, after which one may the request go round again, and who handles everything else?")
    }
    // ANCHOR_END: exercise
}

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::outcome::{ErrorKind, Outcome};
    use testbed::testing::Script;
    use testbed::workload::items;

    /// Runs a request with `retries` over scripted `replies`; returns its
    /// outcome, how many times it resumed, and what it sent.
    fn run(replies: &str, retries: u32) -> (Outcome, usize, String) {
        let item = &items(1, 1)[0];
        let mut conn = Conn::new(Script::new(replies));
        let mut state = Retrying::start(&mut conn, item, retries).expect("HEAD is sent");
        let mut resumes = 0;
        let outcome = loop {
            resumes += 1;
            match state.resume(&mut conn) {
                Ok(Step::Next(next)) => state = next,
                Ok(Step::Done(result)) => break Ok(result),
                Err(failure) => break Err(failure),
            }
        };
        (outcome, resumes, conn.get_ref().sent())
    }

    fn item() -> Item {
        items(1, 1).remove(0)
    }

    #[test]
    fn without_a_nak_it_is_the_plain_request() {
        let item = item();
        let (outcome, resumes, sent) = run(&format!("OK\n200 {}\n", item.expected_result()), 2);
        assert_eq!(
            outcome,
            Ok(item.expected_result()),
            "an accepted HEAD should lead to the BODY's result"
        );
        assert_eq!(
            resumes, 2,
            "two replies, two states: the HEAD's and the BODY's"
        );
        assert_eq!(
            sent,
            format!("HEAD 0\nBODY 0 {}\n", item.payload),
            "without a NAK, one HEAD and one BODY"
        );
    }

    #[test]
    fn a_nak_is_retried_and_the_request_goes_on() {
        let item = item();
        let replies = format!("NAK busy\nOK\n200 {}\n", item.expected_result());
        let (outcome, resumes, sent) = run(&replies, 1);
        assert_eq!(
            outcome,
            Ok(item.expected_result()),
            "after a NAK and a retry allowed, the request should go on and succeed"
        );
        assert_eq!(resumes, 3, "one more state visited: the retry");
        assert_eq!(
            sent,
            format!("HEAD 0\nHEAD 0\nBODY 0 {}\n", item.payload),
            "a NAK should be answered with a second HEAD, then the BODY"
        );
    }

    #[test]
    fn retries_run_out() {
        let (outcome, resumes, sent) = run("NAK busy\nNAK busy\nNAK still\n", 2);
        assert_eq!(
            outcome.map_err(|f| f.kind),
            Err(ErrorKind::Nak),
            "the third NAK, with 2 retries used up, should fail the request as a NAK"
        );
        assert_eq!(resumes, 3, "three HEADs, three replies");
        assert_eq!(
            sent, "HEAD 0\nHEAD 0\nHEAD 0\n",
            "2 retries allowed: the first HEAD and two more, no fourth"
        );
        let (outcome, _, sent) = run("NAK busy\n", 0);
        assert_eq!(
            outcome.map_err(|f| f.kind),
            Err(ErrorKind::Nak),
            "with no retry allowed, a NAK should fail the request"
        );
        assert_eq!(sent, "HEAD 0\n", "no retries allowed, no second HEAD");
    }

    #[test]
    fn failures_after_the_ack_are_the_inner_machines() {
        let (outcome, _, _) = run("NAK busy\nOK\n500 KO\n", 1);
        assert_eq!(
            outcome.map_err(|f| f.kind),
            Err(ErrorKind::Ko),
            "a KO after the retry should be the inner machine's failure"
        );
        let (outcome, _, _) = run("OK\n", 1);
        assert_eq!(
            outcome.map_err(|f| f.kind),
            Err(ErrorKind::Closed),
            "a connection closed after the ack should fail as closed"
        );
        let (outcome, _, sent) = run("200 0000000000000001\n", 1);
        assert_eq!(
            outcome.map_err(|f| f.kind),
            Err(ErrorKind::Protocol),
            "a result in answer to a HEAD is a protocol error, not a reason to retry"
        );
        assert_eq!(sent, "HEAD 0\n", "only a NAK is retried");
    }
}
