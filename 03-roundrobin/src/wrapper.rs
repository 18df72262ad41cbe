//! The connection wrapper: one connection, and what to do when its reply
//! comes.
//!
//! The source article's `Conn` package, with its three operations:
//!
//! - [`start`](Wrapper::start) (the source article's `async`) sends the first line of
//!   a request and *remembers* the rest: the next phase, and the callbacks
//!   for success and error. It refuses, with [`Busy`], a wrapper that still
//!   has a request (the source article dies "already in use");
//! - [`dispose`](Wrapper::dispose) blocks until the current phase's reply
//!   arrives, runs that phase, and keeps whatever it returns as the next
//!   phase. When the request ends, it calls the success or the error
//!   callback;
//! - [`is_working`](Wrapper::is_working) says whether a request is still
//!   pending.
//!
//! The wrapper is generic over the stream, so tests drive it with scripted
//! replies (`testbed::testing::Script`) and the stage with `TcpStream`s.
//!
//! # Failures
//!
//! Every way a request can end badly reaches the error callback, with its
//! item, exactly once: a `NAK` or `500` (the connection stays in use), a
//! closed connection, a garbled reply or a timeout (the connection is
//! dropped, and the wrapper reconnects when it starts its next item), and
//! a connection that could not be opened or written to in the first place.
//! That last kind is found by `start`, but reported by the next `dispose`,
//! like any reply: callbacks run from `dispose` and from nowhere else, so
//! the caller of `start` never sees a callback run under its feet.
//!
//! Not here: which wrapper to visit next (the loops, `loops.rs`), or how
//! the callbacks record (`fleet.rs`).

use std::fmt;
use std::io::{Read, Write};

use testbed::conn::Conn;
use testbed::outcome::Failure;
use testbed::protocol::{Phases, ResultHash};
use testbed::store::{Lane, Store, StoreError};
use testbed::workload::Item;

use crate::continuation::{Continuation, Step, send_request};
use crate::machine::Machine;

/// A wrapper's number: its place in the round-robin order, and its lane on
/// the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WrapperId(pub usize);

impl WrapperId {
    /// The timeline lane this wrapper's requests are drawn in.
    pub fn lane(self) -> Lane {
        Lane::of(self.0)
    }
}

impl fmt::Display for WrapperId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// How a wrapper writes the phases of its requests: the two forms of the
/// same chain (`--chain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Chain {
    /// Boxed closures, each returning the next (`continuation.rs`).
    #[default]
    Closures,
    /// The explicit state machine (`machine.rs`), boxed as closures.
    Enum,
}

impl Chain {
    /// The name used in flags and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Chain::Closures => "closures",
            Chain::Enum => "enum",
        }
    }
}

/// Opens a connection for a wrapper (`sync::connect`, or a script in tests).
pub type Connector<S> = Box<dyn FnMut() -> Result<Conn<S>, Failure>>;

/// Called with the result when a request succeeds.
pub type OnSuccess = Box<dyn FnOnce(&mut Store, ResultHash) -> Result<(), StoreError>>;

/// Called with the item and the failure when a request fails.
pub type OnError = Box<dyn FnOnce(&mut Store, &Item, Failure) -> Result<(), StoreError>>;

/// [`Wrapper::start`] on a wrapper that still has a request pending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("wrapper {0} is already in use: dispose of its request before starting another")]
pub struct Busy(pub WrapperId);

/// One connection and the request pending on it (at most one).
///
/// # Examples
///
/// A two-phase request on a scripted peer: `start` sends `HEAD` and
/// returns; each `dispose` waits for one reply, and the last one calls the
/// success callback, which records through the store it is lent.
///
/// ```
/// use std::time::Instant;
///
/// use roundrobin::{Busy, Chain, Wrapper, WrapperId};
/// use testbed::conn::Conn;
/// use testbed::protocol::Phases;
/// use testbed::store::{DbTarget, Lane, Store};
/// use testbed::testing::Script;
/// use testbed::workload::items;
///
/// let item = items(1, 1).remove(0);
/// let replies = format!("OK\n200 {}\n", item.expected_result());
/// let connect = Box::new(move || Ok(Conn::new(Script::new(replies.clone()))));
/// let mut wrapper = Wrapper::new(WrapperId(0), Phases::Two, Chain::Closures, connect);
/// let mut store = Store::create_run(&DbTarget::memory(), Instant::now(), "example")?;
///
/// let (id, started) = (item.id, Instant::now());
/// let on_success =
///     move |store: &mut Store, result| store.record(id, Lane(0), started, &Ok(result));
/// wrapper.start(&item, on_success, |_, _, _| unreachable!()).expect("not busy");
/// // One request at a time: the source article's "already in use".
/// let again = wrapper.start(&item, |_, _| Ok(()), |_, _, _| Ok(()));
/// assert_eq!(again, Err(Busy(WrapperId(0))));
/// wrapper.dispose(&mut store)?; // `OK`: sends `BODY`, keeps the next phase.
/// assert!(wrapper.is_working());
/// wrapper.dispose(&mut store)?; // `200`: the success callback records it.
/// assert!(!wrapper.is_working());
/// assert_eq!(store.rows()?[0].outcome, Ok(item.expected_result()));
/// # Ok::<(), testbed::store::StoreError>(())
/// ```
pub struct Wrapper<S> {
    id: WrapperId,
    phases: Phases,
    chain: Chain,
    connect: Connector<S>,
    /// `None` before the first request, and after a failure that broke the
    /// connection: the next `start` connects again.
    conn: Option<Conn<S>>,
    /// Connections opened so far (1 + reconnections, once used).
    connects: u32,
    /// The source article's `$self->[1]`, plus what it closed over.
    request: Option<InFlight<S>>,
}

/// A request between `start` and its last `dispose`.
struct InFlight<S> {
    item: Item,
    next: Next<S>,
    on_success: OnSuccess,
    on_error: OnError,
}

/// What the next `dispose` does.
enum Next<S> {
    /// Wait for the reply, then run this phase.
    Reply(Continuation<S>),
    /// Nothing was sent (no connection, or the write failed): report this.
    Failed(Failure),
}

impl<S: Read + Write + 'static> Wrapper<S> {
    /// A wrapper that is not connected yet: it connects on its first
    /// `start`, so wrappers the work never reaches cost nothing.
    pub fn new(id: WrapperId, phases: Phases, chain: Chain, connect: Connector<S>) -> Wrapper<S> {
        Wrapper {
            id,
            phases,
            chain,
            connect,
            conn: None,
            connects: 0,
            request: None,
        }
    }

    // ANCHOR: start
    /// Sends the first line of `item`'s request and remembers the rest: the
    /// next phase and the two callbacks. Returns at once; no reply is read.
    pub fn start(
        &mut self,
        item: &Item,
        on_success: impl FnOnce(&mut Store, ResultHash) -> Result<(), StoreError> + 'static,
        on_error: impl FnOnce(&mut Store, &Item, Failure) -> Result<(), StoreError> + 'static,
    ) -> Result<(), Busy> {
        if self.is_working() {
            // The source article: `die "already in use" if $self->[1]`.
            return Err(Busy(self.id));
        }
        let next = match self.send(item) {
            Ok(phase) => Next::Reply(phase),
            Err(failure) => {
                if failure.kind.breaks_connection() {
                    self.conn = None;
                }
                Next::Failed(failure)
            }
        };
        self.request = Some(InFlight {
            item: item.clone(),
            next,
            on_success: Box::new(on_success),
            on_error: Box::new(on_error),
        });
        Ok(())
    }
    // ANCHOR_END: start

    // ANCHOR: dispose
    /// Blocks until the current phase's reply arrives and runs the phase;
    /// keeps the phase it returns for the next `dispose`, or, when the
    /// request is over, calls its success or error callback. Does nothing on
    /// a wrapper that is not working.
    ///
    /// The database connection is *lent* for the call: the callbacks record
    /// through it, and only `dispose` calls them (see `fleet.rs` for why it
    /// is lent rather than captured). An `Err` is the database failing,
    /// never the request: a failed request is a call to `on_error`.
    pub fn dispose(&mut self, store: &mut Store) -> Result<(), StoreError> {
        let Some(request) = self.request.take() else {
            return Ok(()); // the source article: `return unless $self->[1]`
        };
        let InFlight {
            item,
            next,
            on_success,
            on_error,
        } = request;
        let step = match next {
            Next::Reply(phase) => {
                let conn = self
                    .conn
                    .as_mut()
                    .expect("a reply is only awaited on the connection that sent the request");
                phase.run(conn) // blocks here, until the reply (or a failure)
            }
            Next::Failed(failure) => Err(failure),
        };
        match step {
            // The source article's `$self->[1] = $self->[1]->()`: keep the next phase.
            Ok(Step::Next(phase)) => {
                self.request = Some(InFlight {
                    item,
                    next: Next::Reply(phase),
                    on_success,
                    on_error,
                });
                Ok(())
            }
            Ok(Step::Done(result)) => on_success(store, result),
            Err(failure) => {
                // After a timeout a late reply may still come, after
                // garbage the framing is lost, after a close nothing is
                // left: this connection cannot carry the next request.
                if failure.kind.breaks_connection() {
                    self.conn = None;
                }
                on_error(store, &item, failure)
            }
        }
    }
    // ANCHOR_END: dispose

    /// True while a request is pending: started and not yet finished.
    pub fn is_working(&self) -> bool {
        self.request.is_some()
    }

    /// This wrapper's number.
    pub fn id(&self) -> WrapperId {
        self.id
    }

    /// How many connections this wrapper has opened (reconnections
    /// included).
    pub fn connects(&self) -> u32 {
        self.connects
    }

    /// Connects if needed, sends the first line, and returns the first
    /// phase in the chosen form.
    fn send(&mut self, item: &Item) -> Result<Continuation<S>, Failure> {
        if self.conn.is_none() {
            self.conn = Some((self.connect)()?);
            self.connects += 1;
        }
        let conn = self.conn.as_mut().expect("connected just above");
        match self.chain {
            Chain::Closures => send_request(conn, item, self.phases),
            Chain::Enum => Machine::start(conn, item, self.phases).map(Machine::into_continuation),
        }
    }
}

impl<S> fmt::Debug for Wrapper<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wrapper")
            .field("id", &self.id)
            .field("connected", &self.conn.is_some())
            .field("working", &self.request.is_some())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::time::Instant;
    use testbed::outcome::ErrorKind;
    use testbed::store::DbTarget;
    use testbed::testing::Script;
    use testbed::workload::items;

    /// A wrapper whose connections answer with these scripts, one script per
    /// connection; once they run out, connecting is refused.
    fn scripted(phases: Phases, scripts: &[&str]) -> Wrapper<Script> {
        let mut scripts: VecDeque<Script> = scripts.iter().map(|s| Script::new(*s)).collect();
        let connect = move || {
            scripts
                .pop_front()
                .map(Conn::new)
                .ok_or_else(|| Failure::new(ErrorKind::Refused, "no more scripts"))
        };
        Wrapper::new(WrapperId(0), phases, Chain::Closures, Box::new(connect))
    }

    fn store() -> Store {
        Store::create(&DbTarget::memory(), Instant::now()).expect("an in-memory database")
    }

    /// Starts `item`, recording its outcome on lane 0.
    fn start(wrapper: &mut Wrapper<Script>, item: &Item) -> Result<(), Busy> {
        let (id, started) = (item.id, Instant::now());
        wrapper.start(
            item,
            move |store, result| store.record(id, Lane(0), started, &Ok(result)),
            move |store, item, failure| store.record(item.id, Lane(0), started, &Err(failure)),
        )
    }

    /// Every recorded outcome, by id: `Ok(())` or the failure's kind.
    fn outcomes(store: &Store) -> Vec<(u64, Result<(), ErrorKind>)> {
        let rows = store.rows().expect("rows read back");
        rows.iter()
            .map(|row| {
                (
                    row.id.0,
                    row.outcome.as_ref().map(|_| ()).map_err(|f| f.kind),
                )
            })
            .collect()
    }

    #[test]
    fn a_two_phase_request_takes_two_disposes() {
        let item = &items(1, 1)[0];
        let reply = format!("OK\n200 {}\n", item.expected_result());
        let mut wrapper = scripted(Phases::Two, &[&reply]);
        let mut store = store();
        start(&mut wrapper, item).expect("an idle wrapper accepts");
        assert!(wrapper.is_working());
        wrapper.dispose(&mut store).expect("records");
        assert!(
            wrapper.is_working(),
            "after OK, the BODY's reply is pending"
        );
        assert!(outcomes(&store).is_empty());
        wrapper.dispose(&mut store).expect("records");
        assert!(!wrapper.is_working());
        assert_eq!(outcomes(&store), [(0, Ok(()))]);
        // Disposing an idle wrapper does nothing.
        wrapper.dispose(&mut store).expect("nothing to record");
        assert_eq!(outcomes(&store).len(), 1);
    }

    #[test]
    fn a_busy_wrapper_refuses_a_second_request() {
        let two = items(2, 1);
        let mut wrapper = scripted(Phases::One, &[""]);
        start(&mut wrapper, &two[0]).expect("an idle wrapper accepts");
        assert_eq!(start(&mut wrapper, &two[1]), Err(Busy(WrapperId(0))));
    }

    #[test]
    fn nak_and_ko_keep_the_connection() {
        let three = items(3, 1);
        let replies = format!(
            "NAK no\nOK\n500 KO\nOK\n200 {}\n",
            three[2].expected_result()
        );
        let mut wrapper = scripted(Phases::Two, &[&replies]);
        let mut store = store();
        for item in &three {
            start(&mut wrapper, item).expect("idle between items");
            while wrapper.is_working() {
                wrapper.dispose(&mut store).expect("records");
            }
        }
        assert_eq!(
            outcomes(&store),
            [
                (0, Err(ErrorKind::Nak)),
                (1, Err(ErrorKind::Ko)),
                (2, Ok(()))
            ]
        );
        assert_eq!(wrapper.connects(), 1, "answers do not break the connection");
    }

    #[test]
    fn a_broken_connection_fails_its_item_and_the_next_one_reconnects() {
        let three = items(3, 1);
        // Closed before the reply; then a garbled reply; then a good one.
        let good = format!("200 {}\n", three[2].expected_result());
        let mut wrapper = scripted(Phases::One, &["", "\x07\n", &good]);
        let mut store = store();
        for item in &three {
            start(&mut wrapper, item).expect("idle between items");
            wrapper.dispose(&mut store).expect("records");
        }
        assert_eq!(
            outcomes(&store),
            [
                (0, Err(ErrorKind::Closed)),
                (1, Err(ErrorKind::Protocol)),
                (2, Ok(()))
            ]
        );
        assert_eq!(wrapper.connects(), 3);
    }

    #[test]
    fn a_refused_connection_is_reported_by_dispose_not_start() {
        let item = &items(1, 1)[0];
        let mut wrapper = scripted(Phases::Two, &[]);
        let mut store = store();
        start(&mut wrapper, item).expect("start accepts; the failure waits for dispose");
        assert!(wrapper.is_working());
        assert!(outcomes(&store).is_empty(), "no callback ran inside start");
        wrapper.dispose(&mut store).expect("records");
        assert_eq!(outcomes(&store), [(0, Err(ErrorKind::Refused))]);
        assert!(!wrapper.is_working());
    }
}
