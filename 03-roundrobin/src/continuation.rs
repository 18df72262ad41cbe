//! A request split in phases: a closure that returns a closure.
//!
//! Stage 1 sends a request and waits for its reply in one breath
//! (`sync::request`). To keep many requests in flight from one thread, this
//! stage cuts that function at every wait: the part before the wait runs now
//! ("send"), and the part after it is *kept for later* as a value, to run when
//! the loop comes back to this connection ("later, receive and handle").
//!
//! In the source article the part kept for later is a Perl closure, the
//! wrapper's `INTERNAL`; when it runs, it returns the *next* closure (the
//! second phase of a two-phase request) or `undef` when the request is over.
//! Here it is a [`Continuation`]: a boxed `FnOnce` that, given the
//! connection, blocks for one reply, handles it, and returns a [`Step`]: the
//! next continuation, or the result.
//!
//! Two differences from the source article, both on purpose:
//!
//! - the continuation does not *capture* the connection; the wrapper lends
//!   it (`&mut Conn<S>`) each time it runs one. A closure stored inside the
//!   wrapper that also held a reference to the wrapper's own connection would
//!   be a struct that borrows from itself, which Rust does not allow;
//! - the continuation does not call the success callback itself: it returns
//!   the result ([`Step::Done`]) or fails (`Err`, the source article's `die`), and the
//!   wrapper calls the right callback. That keeps every callback call in one
//!   place, `Wrapper::dispose`, which holds the database connection.
//!
//! Not here: the wrapper that stores the continuation (`wrapper.rs`), or the
//! same chain written as an enum (`machine.rs`, read it next).

use std::fmt;
use std::io::{Read, Write};

use testbed::conn::Conn;
use testbed::outcome::{Failure, ack, answer};
use testbed::protocol::{Phases, Request, ResultHash};
use testbed::workload::Item;

/// Where running one phase of a request leads.
///
/// `K` is "what to do when the next reply comes": a [`Continuation`] in the
/// closure chain, a [`Machine`](crate::machine::Machine) in its enum twin.
#[derive(Debug, PartialEq, Eq)]
pub enum Step<K> {
    /// The request goes on: run `K` when the next reply is due.
    Next(K),
    /// The request is over and succeeded with this result.
    Done(ResultHash),
}

/// What running a phase gives: the next step, or the failure that ends the
/// request (`NAK`, `500`, a closed connection, a garbled reply...).
pub type PhaseResult<K> = Result<Step<K>, Failure>;

/// The function a [`Continuation`] boxes.
type PhaseFn<S> = dyn FnOnce(&mut Conn<S>) -> PhaseResult<Continuation<S>>;

/// One phase of a request, waiting for its reply: the source article's `INTERNAL`.
///
/// `FnOnce`, because a phase must run at most once: running the phase that
/// received a reply a second time would read the *next* reply as if it were
/// this one's, and record an item twice. The compiler enforces it:
/// [`run`](Continuation::run) takes `self`, so a continuation is used up.
///
/// It is boxed because every phase is a different closure type, and the
/// wrapper must hold any of them in one field.
///
/// # Examples
///
/// The two-phase chain [`send_request`] returns, run by hand on a scripted
/// peer: each `run` reads one reply.
///
/// ```
/// use roundrobin::{Step, send_request};
/// use testbed::conn::Conn;
/// use testbed::protocol::Phases;
/// use testbed::testing::Script;
/// use testbed::workload::items;
///
/// let item = &items(1, 1)[0];
/// let mut conn = Conn::new(Script::new(format!("OK\n200 {}\n", item.expected_result())));
/// let first = send_request(&mut conn, item, Phases::Two)?; // `HEAD` is sent.
/// let Step::Next(second) = first.run(&mut conn)? else {
///     panic!("after `OK` comes the `BODY` phase");
/// };
/// let Step::Done(result) = second.run(&mut conn)? else {
///     panic!("`200` ends the request");
/// };
/// assert_eq!(result, item.expected_result());
/// # Ok::<(), testbed::outcome::Failure>(())
/// ```
pub struct Continuation<S>(Box<PhaseFn<S>>);

impl<S> Continuation<S> {
    /// Wraps a phase: a closure that blocks for one reply on the connection
    /// it is given, and says what comes next.
    pub fn new(
        phase: impl FnOnce(&mut Conn<S>) -> PhaseResult<Continuation<S>> + 'static,
    ) -> Continuation<S> {
        Continuation(Box::new(phase))
    }

    /// Runs the phase on `conn`: blocks until its reply arrives (or the
    /// connection fails), handles it, and returns what comes next.
    pub fn run(self, conn: &mut Conn<S>) -> PhaseResult<Continuation<S>> {
        (self.0)(conn)
    }
}

impl<S> fmt::Debug for Continuation<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A closure has no name and nothing printable inside.
        f.write_str("Continuation(..)")
    }
}

// ANCHOR: chain
/// Sends the first line of `item`'s request and returns what to do when its
/// reply comes: the source article's `async`, minus the bookkeeping the wrapper does.
///
/// Two phases: send `HEAD` now; *later*, read `OK`, send `BODY`, and return
/// the second phase; *later still*, read `200`. One phase: send `GET` now,
/// read `200` later. Nothing here waits for a reply: the waiting happens
/// when the wrapper runs the continuation.
pub fn send_request<S: Read + Write + 'static>(
    conn: &mut Conn<S>,
    item: &Item,
    phases: Phases,
) -> Result<Continuation<S>, Failure> {
    match phases {
        Phases::One => {
            conn.send(&Request::Get(item.id, item.payload.clone()))?;
            Ok(Continuation::new(|conn| {
                // INTERNAL, the only phase: the result.
                Ok(Step::Done(answer(conn.recv()?)?))
            }))
        }
        Phases::Two => {
            conn.send(&Request::Head(item.id))?;
            // The first phase needs the payload for `BODY`: it captures its
            // own copy, as the source article's closure captures `$request`.
            let item = item.clone();
            Ok(Continuation::new(move |conn| {
                // INTERNAL, first phase: `OK` (or `NAK`, which ends it here).
                ack(conn.recv()?)?;
                conn.send(&Request::Body(item.id, item.payload))?;
                Ok(Step::Next(Continuation::new(|conn| {
                    // INTERNAL, second phase: the result.
                    Ok(Step::Done(answer(conn.recv()?)?))
                })))
            }))
        }
    }
}
// ANCHOR_END: chain

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::outcome::{ErrorKind, Outcome};
    use testbed::testing::Script;
    use testbed::workload::items;

    /// Runs a chain to its end, counting the phases that ran.
    fn run_to_end(conn: &mut Conn<Script>, mut next: Continuation<Script>) -> (usize, Outcome) {
        let mut phases = 0;
        loop {
            phases += 1;
            match next.run(conn) {
                Ok(Step::Next(k)) => next = k,
                Ok(Step::Done(result)) => return (phases, Ok(result)),
                Err(failure) => return (phases, Err(failure)),
            }
        }
    }

    #[test]
    fn two_phases_send_body_only_after_ok() {
        let item = &items(1, 1)[0];
        let mut conn = Conn::new(Script::new(format!("OK\n200 {}\n", item.expected_result())));
        let first = send_request(&mut conn, item, Phases::Two).expect("HEAD is sent");
        // Starting sends only the HEAD: nothing has waited for a reply yet.
        assert_eq!(conn.get_ref().sent(), "HEAD 0\n");
        let second = match first.run(&mut conn) {
            Ok(Step::Next(second)) => second,
            other => panic!("the first phase returns the second, got {other:?}"),
        };
        assert_eq!(
            conn.get_ref().sent(),
            format!("HEAD 0\nBODY 0 {}\n", item.payload)
        );
        assert!(matches!(
            second.run(&mut conn),
            Ok(Step::Done(result)) if result == item.expected_result()
        ));
    }

    #[test]
    fn a_nak_ends_the_chain_after_one_phase() {
        let item = &items(1, 1)[0];
        let mut conn = Conn::new(Script::new("NAK not now\n"));
        let first = send_request(&mut conn, item, Phases::Two).expect("HEAD is sent");
        let (ran, outcome) = run_to_end(&mut conn, first);
        assert_eq!(ran, 1);
        assert_eq!(outcome.map_err(|f| f.kind), Err(ErrorKind::Nak));
        assert_eq!(conn.get_ref().sent(), "HEAD 0\n", "no BODY after a NAK");
    }

    #[test]
    fn replies_map_to_error_kinds_in_each_phase() {
        let item = &items(1, 1)[0];
        let cases = [
            (Phases::One, "500 KO\n", ErrorKind::Ko),
            (Phases::One, "OK\n", ErrorKind::Protocol),
            (Phases::One, "", ErrorKind::Closed),
            (Phases::Two, "200 0000000000000001\n", ErrorKind::Protocol),
            (Phases::Two, "OK\n500 KO\n", ErrorKind::Ko),
            (Phases::Two, "OK\nNAK late\n", ErrorKind::Protocol),
            (Phases::Two, "OK\n\x01\n", ErrorKind::Protocol),
            (Phases::Two, "OK\n", ErrorKind::Closed),
            (Phases::Two, "503 busy\n", ErrorKind::Refused),
        ];
        for (phases, replies, kind) in cases {
            let mut conn = Conn::new(Script::new(replies));
            let first = send_request(&mut conn, item, phases).expect("the request is sent");
            let (_, outcome) = run_to_end(&mut conn, first);
            assert_eq!(outcome.map_err(|f| f.kind), Err(kind), "{replies:?}");
        }
    }
}
