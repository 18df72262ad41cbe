//! The closure chain's twin: the same request as an explicit state machine.
//!
//! A closure is a struct the compiler writes for you: one field per
//! captured variable, and one method, "call". The first phase of the
//! two-phase chain in `continuation.rs` captures the item (it needs the
//! payload for `BODY`); the second captures nothing. Write those two structs
//! out by hand, put them in one enum, and "call" becomes a `match`:
//! that is [`Machine`]. Each variant is a place where the request waits for a
//! reply, holding exactly what the rest of the request still needs.
//!
//! The two forms are interchangeable: [`Machine::into_continuation`] boxes
//! the enum as a closure chain, which is how the wrapper runs either one
//! (`--chain enum`), and the conformance tests run the stage both ways.
//!
//! # Why an enum at all?
//!
//! Because this is what an `async fn` is. Given straight-line code with an
//! `.await` at every wait, the compiler generates an enum with one variant
//! per `.await` (holding the local variables alive across it) and a `poll`
//! method that is this `resume`: run until the next wait, store the state,
//! return. The enum is sized, needs no box per phase, and can be inspected
//! and tested; the closure chain is easier to write by hand. The test module
//! at the end of this file runs the same request as an `async fn` and
//! counts its suspensions.
//!
//! [`Machine::resume`] is two steps: wait for the reply (`conn.recv()`),
//! then [`Machine::handle`] it. Keeping them apart lets a caller that
//! already has the reply (because something else did the waiting) drive the
//! machine, and lets another machine wrap this one (chapter 3's `ch03-retry`
//! exercise).
//!
//! Not here: where the machine waits for its reply (the wrapper, blocking in
//! `dispose`). Stage 4 keeps this shape and changes only that.
//!
//! # Examples
//!
//! The states of a two-phase request, on a scripted peer: the state after
//! `HEAD` holds the item, the one after `BODY` holds nothing.
//!
//! ```
//! use roundrobin::{Machine, Step};
//! use testbed::conn::Conn;
//! use testbed::protocol::Phases;
//! use testbed::testing::Script;
//! use testbed::workload::items;
//!
//! let item = &items(1, 1)[0];
//! let mut conn = Conn::new(Script::new(format!("OK\n200 {}\n", item.expected_result())));
//! let state = Machine::start(&mut conn, item, Phases::Two)?;
//! assert_eq!(state, Machine::AwaitingAck { item: item.clone() });
//! let Step::Next(state) = state.resume(&mut conn)? else {
//!     panic!("`OK` leads to the `BODY`");
//! };
//! assert_eq!(state, Machine::AwaitingResult);
//! assert_eq!(state.resume(&mut conn)?, Step::Done(item.expected_result()));
//! # Ok::<(), testbed::outcome::Failure>(())
//! ```

use std::io::{Read, Write};

use testbed::conn::Conn;
use testbed::outcome::{Failure, ack, answer};
use testbed::protocol::{Phases, Reply, Request};
use testbed::workload::Item;

use crate::continuation::{Continuation, PhaseResult, Step};

// ANCHOR: machine
/// Where a request is waiting, and what it still needs: one variant per
/// reply it waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Machine {
    /// `HEAD` sent; waiting for `OK` or `NAK`. Keeps the item, because the
    /// `BODY` still has to be sent (the first closure's capture).
    AwaitingAck {
        /// The item whose `BODY` comes next.
        item: Item,
    },
    /// `GET` or `BODY` sent; waiting for `200` or `500`. Needs nothing more
    /// (the second closure captures nothing).
    AwaitingResult,
}

impl Machine {
    /// Sends the first line of `item`'s request and returns the state that
    /// waits for its reply (the chain's `send_request`).
    pub fn start<S: Read + Write>(
        conn: &mut Conn<S>,
        item: &Item,
        phases: Phases,
    ) -> Result<Machine, Failure> {
        match phases {
            Phases::One => {
                conn.send(&Request::Get(item.id, item.payload.clone()))?;
                Ok(Machine::AwaitingResult)
            }
            Phases::Two => {
                conn.send(&Request::Head(item.id))?;
                Ok(Machine::AwaitingAck { item: item.clone() })
            }
        }
    }

    /// Blocks for the reply this state waits for, handles it, and returns
    /// the next state or the result: "call the closure", as a `match`.
    pub fn resume<S: Read + Write>(self, conn: &mut Conn<S>) -> PhaseResult<Machine> {
        let reply = conn.recv()?; // blocks here
        self.handle(reply, conn)
    }

    /// Handles `reply`, which has arrived for this state: sends what comes
    /// next on `conn`, if anything, and returns the next state or the result.
    /// Never waits: whoever read the reply did the waiting.
    pub fn handle<S: Read + Write>(self, reply: Reply, conn: &mut Conn<S>) -> PhaseResult<Machine> {
        match self {
            Machine::AwaitingAck { item } => {
                ack(reply)?;
                conn.send(&Request::Body(item.id, item.payload))?;
                Ok(Step::Next(Machine::AwaitingResult))
            }
            Machine::AwaitingResult => Ok(Step::Done(answer(reply)?)),
        }
    }
}
// ANCHOR_END: machine

impl Machine {
    // ANCHOR: into_continuation
    /// The machine as a closure chain: a closure that resumes it, and
    /// wraps the next state the same way. The wrapper only knows
    /// continuations, so this is all it takes to run the enum instead.
    pub fn into_continuation<S: Read + Write + 'static>(self) -> Continuation<S> {
        Continuation::new(move |conn| {
            Ok(match self.resume(conn)? {
                Step::Next(state) => Step::Next(state.into_continuation()),
                Step::Done(result) => Step::Done(result),
            })
        })
    }
    // ANCHOR_END: into_continuation
}

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::outcome::ErrorKind;
    use testbed::testing::Script;
    use testbed::workload::items;

    #[test]
    fn walks_the_same_states_as_the_chain() {
        let item = &items(1, 1)[0];
        let mut conn = Conn::new(Script::new(format!("OK\n200 {}\n", item.expected_result())));
        let state = Machine::start(&mut conn, item, Phases::Two).expect("HEAD is sent");
        assert_eq!(state, Machine::AwaitingAck { item: item.clone() });
        let state = state.resume(&mut conn);
        assert_eq!(state, Ok(Step::Next(Machine::AwaitingResult)));
        assert_eq!(
            Machine::AwaitingResult.resume(&mut conn),
            Ok(Step::Done(item.expected_result()))
        );
        assert_eq!(
            conn.get_ref().sent(),
            format!("HEAD 0\nBODY 0 {}\n", item.payload)
        );
    }

    #[test]
    fn one_phase_starts_where_two_phases_end() {
        let item = &items(1, 1)[0];
        let mut conn = Conn::new(Script::new("500 KO\n"));
        let state = Machine::start(&mut conn, item, Phases::One).expect("GET is sent");
        assert_eq!(state, Machine::AwaitingResult);
        let failure = state.resume(&mut conn).expect_err("500 fails the item");
        assert_eq!(failure.kind, ErrorKind::Ko);
    }

    #[test]
    fn as_a_continuation_it_behaves_like_the_chain() {
        let item = &items(1, 1)[0];
        let mut conn = Conn::new(Script::new("NAK no\n"));
        let first = Machine::start(&mut conn, item, Phases::Two)
            .expect("HEAD is sent")
            .into_continuation();
        let failure = first.run(&mut conn).expect_err("NAK fails the item");
        assert_eq!(failure.kind, ErrorKind::Nak);
        assert_eq!(conn.get_ref().sent(), "HEAD 0\n");
    }

    /// The same request once more, as an `async fn`: the compiler writes
    /// the state machine. Each `.await` on [`reply`] is a place where the
    /// future returns `Pending` (here: once, to show the suspension) and
    /// keeps its live variables, exactly like a [`Machine`] variant.
    mod async_twin {
        use std::future::Future;
        use std::pin::pin;
        use std::task::{Context, Poll, Waker};

        use super::*;
        use testbed::outcome::Outcome;

        // ANCHOR: async_fn
        /// The two-phase request as straight-line code: no closures, no
        /// enum. The compiler turns it into an enum with a variant per
        /// `.await`, like `Machine`, and a `poll` that resumes it.
        async fn request(conn: &mut Conn<Script>, item: &Item) -> Outcome {
            conn.send(&Request::Head(item.id))?;
            ack(reply(conn).await?)?; // AwaitingAck { item }
            conn.send(&Request::Body(item.id, item.payload.clone()))?;
            answer(reply(conn).await?) // AwaitingResult
        }

        /// "The reply is not here yet": suspends once, then reads it.
        async fn reply(conn: &mut Conn<Script>) -> Result<Reply, Failure> {
            NotYet(false).await;
            conn.recv()
        }
        // ANCHOR_END: async_fn

        /// A future that is pending the first time it is polled.
        struct NotYet(bool);

        impl Future for NotYet {
            type Output = ();
            fn poll(mut self: std::pin::Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
                if self.0 {
                    Poll::Ready(())
                } else {
                    self.0 = true;
                    Poll::Pending
                }
            }
        }

        #[test]
        fn an_async_fn_suspends_once_per_reply() {
            let item = &items(1, 1)[0];
            let mut conn = Conn::new(Script::new(format!("OK\n200 {}\n", item.expected_result())));
            let mut future = pin!(request(&mut conn, item));
            // No executor needed: poll by hand, with a waker that does
            // nothing, and count how often the request stops to wait.
            let mut cx = Context::from_waker(Waker::noop());
            let mut suspensions = 0;
            let outcome = loop {
                match future.as_mut().poll(&mut cx) {
                    Poll::Ready(outcome) => break outcome,
                    Poll::Pending => suspensions += 1,
                }
            };
            assert_eq!(outcome, Ok(item.expected_result()));
            assert_eq!(suspensions, 2, "one per reply, like Machine's two states");
        }
    }
}
