//! A slot: one connection carrying at most one item at a time, turning
//! readiness into request progress.
//!
//! This is the building block between the bytes ([`Connection`]) and the
//! policy ([`crate::pool`]): give a [`Slot`] an item with
//! [`start`](Slot::start), give it every event for its token with
//! [`on_event`](Slot::on_event), and it answers with a [`Turn`]: maybe the
//! item finished (with its outcome), and whether the connection can carry
//! another one. It decides nothing about *which* item goes where or when to
//! wait; a pool with other rules (stage 5's timeouts, recycling, a FIFO of
//! waiters) can reuse it as it is.
//!
//! A slot carries a caller's value `T` with its item (the pool's callback,
//! a checkout ticket...) and hands it back in the `Turn` that finishes the
//! item, so the slot never needs to know what it is.
//!
//! Not here: waiting ([`crate::selector`]), choosing a slot
//! ([`crate::pool`]).

use std::io;
use std::net::SocketAddr;
use std::time::Instant;

use testbed::outcome::{ErrorKind, Failure, Outcome};
use testbed::protocol::Phases;
use testbed::workload::Item;

use crate::connection::Connection;
use crate::event::{Event, Interest, Token};
use crate::exchange::{Exchange, Step};
use crate::selector::Selector;

/// A slot's number in its pool: also its selector token and its lane on the
/// timeline. A slot whose connection broke is recreated under the same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotId(usize);

impl SlotId {
    /// The slot at `index` in its pool's list of slots.
    pub const fn new(index: usize) -> SlotId {
        SlotId(index)
    }

    /// Its place in the pool's list of slots (and its timeline lane).
    pub const fn index(self) -> usize {
        self.0
    }

    /// The selector token for this slot: the same number, so that an event
    /// leads straight back to its slot ([`SlotId::from_token`]).
    pub const fn token(self) -> Token {
        Token::new(self.0)
    }

    /// The slot an event's token names (the inverse of
    /// [`token`](Self::token)).
    pub const fn from_token(token: Token) -> SlotId {
        SlotId(token.get())
    }
}

/// What one call did to a slot.
#[derive(Debug)]
#[must_use = "a finished item must be reported, and a dead slot closed"]
pub struct Turn<T> {
    /// The item that finished, with the caller's value and its outcome.
    pub finished: Option<(T, Outcome)>,
    /// False when the connection cannot be used again: close the slot with
    /// [`Slot::close`] (its item, if any, is in `finished`).
    pub alive: bool,
}

/// A connection and the item it carries.
#[derive(Debug)]
pub struct Slot<T> {
    id: SlotId,
    conn: Connection,
    /// The item in flight, and the caller's value for it.
    job: Option<(Exchange, T)>,
    /// What the selector watches for now.
    registered: Interest,
    /// Items started on this connection.
    uses: u64,
    /// When the connection last read or wrote a byte (or an item was
    /// started on it): an event that moved nothing does not count.
    last_active: Instant,
}

impl<T> Slot<T> {
    /// Starts connecting to `server` and registers the connection with
    /// `selector` under `id`'s token (once, for the connection's life).
    ///
    /// A failure of `connect` itself is returned as a [`Failure`] for the
    /// item that wanted this slot; a failure to register is an `io::Error`
    /// (the selector cannot watch this descriptor: `select` and
    /// `FD_SETSIZE`), which no single item can be blamed for.
    pub fn open(
        id: SlotId,
        server: SocketAddr,
        selector: &mut Selector,
    ) -> io::Result<Result<Slot<T>, Failure>> {
        let conn = match Connection::connect(server) {
            Ok(conn) => conn,
            Err(e) => return Ok(Err(Failure::from_io(&e))),
        };
        Slot::adopt(id, conn, selector).map(Ok)
    }

    /// Registers an existing connection as slot `id`.
    pub fn adopt(id: SlotId, conn: Connection, selector: &mut Selector) -> io::Result<Slot<T>> {
        let registered = conn.interest();
        selector.add(conn.fd(), id.token(), registered)?;
        Ok(Slot {
            id,
            conn,
            job: None,
            registered,
            uses: 0,
            last_active: Instant::now(),
        })
    }

    /// This slot's id.
    pub fn id(&self) -> SlotId {
        self.id
    }

    /// True when no item is in flight.
    pub fn is_free(&self) -> bool {
        self.job.is_none()
    }

    /// Items started on this connection so far (stage 5 recycles a
    /// connection after N uses).
    pub fn uses(&self) -> u64 {
        self.uses
    }

    /// When the connection last moved a byte, in or out, or was given an
    /// item: stage 5's idle and read timeouts start from here. Events that
    /// moved nothing (readiness is only a hint) leave it alone, so a read
    /// timeout measures the peer's silence, not the loop's wake-ups.
    pub fn last_active(&self) -> Instant {
        self.last_active
    }

    /// The item in flight, if any.
    pub fn item(&self) -> Option<&Item> {
        self.job.as_ref().map(|(exchange, _)| exchange.item())
    }

    /// The connection, for inspection.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    // ANCHOR: start
    /// Starts `item` on this free slot: sends its first line (or queues it
    /// while the connection is still connecting).
    ///
    /// # Panics
    ///
    /// If the slot is busy: one item at a time, the caller checks
    /// [`is_free`](Self::is_free).
    pub fn start(
        &mut self,
        item: Item,
        phases: Phases,
        tag: T,
        selector: &mut Selector,
    ) -> Turn<T> {
        assert!(self.job.is_none(), "slot {:?} is busy", self.id);
        let (exchange, first) = Exchange::start(item, phases);
        self.job = Some((exchange, tag));
        self.uses += 1;
        self.last_active = Instant::now();
        if let Err(e) = self.conn.send_line(&first) {
            return self.fail(Failure::from_io(&e));
        }
        self.settle(None, selector)
    }
    // ANCHOR_END: start

    // ANCHOR: on_event
    /// Handles one event for this slot: does the I/O it allows, then feeds
    /// every complete reply to the item's exchange, sending the next line
    /// or finishing the item. [`last_active`](Self::last_active) moves only
    /// if bytes did.
    pub fn on_event(&mut self, event: &Event, selector: &mut Selector) -> Turn<T> {
        debug_assert_eq!(event.token, self.id.token(), "event for another slot");
        let moved = self.conn.bytes_moved();
        let turn = self.progress(event, selector);
        if self.conn.bytes_moved() != moved {
            self.last_active = Instant::now();
        }
        turn
    }

    /// The I/O and the replies of one event (see [`on_event`](Self::on_event)).
    fn progress(&mut self, event: &Event, selector: &mut Selector) -> Turn<T> {
        if let Err(e) = self.conn.on_ready(event) {
            return self.fail(Failure::from_io(&e));
        }
        let mut finished = None;
        // Every line there is, not just one: two replies may have arrived in
        // one segment, and no event will come for bytes already read. The
        // connection reads on as the lines are taken, until the socket is
        // empty, so this loop is where a peer that keeps sending is
        // stopped: each line either moves the exchange on (two at most per
        // item) or, with no request in flight, ends the connection.
        loop {
            let reply = match self.conn.next_reply() {
                Ok(Some(reply)) => reply,
                Ok(None) => break,
                Err(failure) => return self.fail_with(finished, failure),
            };
            let Some((exchange, _)) = self.job.as_mut() else {
                let failure = Failure::new(
                    ErrorKind::Protocol,
                    format!("reply '{reply}' with no request in flight"),
                );
                return self.fail_with(finished, failure);
            };
            match exchange.on_reply(reply) {
                Step::Send(line) => {
                    if let Err(e) = self.conn.send_line(&line) {
                        return self.fail(Failure::from_io(&e));
                    }
                }
                Step::Done(outcome) => {
                    let (_, tag) = self.job.take().expect("a job is in flight: matched above");
                    let breaks = matches!(&outcome, Err(f) if f.kind.breaks_connection());
                    finished = Some((tag, outcome));
                    if breaks {
                        return Turn {
                            finished,
                            alive: false,
                        };
                    }
                }
            }
        }
        if self.conn.at_eof() {
            let detail = if self.conn.has_partial_line() {
                "the server closed the connection in the middle of a line"
            } else {
                "the server closed the connection"
            };
            return self.fail_with(finished, Failure::new(ErrorKind::Closed, detail));
        }
        self.settle(finished, selector)
    }
    // ANCHOR_END: on_event

    /// Deregisters the connection, then closes it (in that order: a closed
    /// descriptor number is soon reused).
    pub fn close(self, selector: &mut Selector) -> io::Result<()> {
        selector.delete(self.conn.fd())
        // `self.conn` drops here, closing the socket.
    }

    /// Brings the selector's interest up to date and reports a live slot.
    fn settle(&mut self, finished: Option<(T, Outcome)>, selector: &mut Selector) -> Turn<T> {
        let wanted = self.conn.interest();
        if wanted != self.registered {
            if let Err(e) = selector.modify(self.conn.fd(), self.id.token(), wanted) {
                return self.fail_with(finished, Failure::from_io(&e));
            }
            self.registered = wanted;
        }
        Turn {
            finished,
            alive: true,
        }
    }

    /// Gives up on the connection: the item in flight, if any, fails with
    /// `failure`, and the turn says the slot is dead (close it). Stage 4
    /// calls this on I/O errors; a pool with deadlines calls it when one
    /// passes (a read timeout).
    pub fn fail(&mut self, failure: Failure) -> Turn<T> {
        self.fail_with(None, failure)
    }

    /// As [`fail`](Self::fail), keeping an item that already finished in
    /// this turn (then no item is in flight to blame).
    fn fail_with(&mut self, finished: Option<(T, Outcome)>, failure: Failure) -> Turn<T> {
        let failed = self.job.take().map(|(_, tag)| (tag, Err(failure)));
        Turn {
            finished: finished.or(failed),
            alive: false,
        }
    }
}
