//! Connections: opening them, closing them, and reconnecting politely.
//!
//! The pool opens a connection when it is short of them (queued checkouts,
//! or fewer idle than `min_idle`) and has room; a handshake is a place of
//! its own until it finishes. A failed connect closes the reconnect gate
//! for a backoff; when the gate opens, one probe goes out at a time, and
//! the first call the server answers opens it fully. Not the first
//! handshake: a server that turns every connection away with `503` has
//! completed each handshake first, and would otherwise be probed at the
//! base delay forever. After enough backoffs in a row, while the gate is
//! closed and the pool has no connection at all, the server is down, and
//! queued checkouts fail at once rather than wait for their timeout.
//!
//! Standbys have a gate of their own. A server that accepts connections
//! and closes them unused (a proxy with no backend behind it) fails no
//! connect, yet a pool that replaced its `min_idle` standbys at once would
//! open and lose them as fast as the round trip allows, forever. So a
//! *replacement* that dies unused, like the connection it replaced, holds
//! the standbys back for a backoff; the first death of a wave is free (a
//! restart closes every idle connection, and they are replaced at once),
//! and checkouts are never held back by this gate.
//!
//! Not here: the handshake's end ([`super::events`]), the backoff's
//! arithmetic ([`crate::backoff`]).

use std::io;
use std::time::Instant;

use select::connection::Connection;
use select::slot::{Slot, SlotId};
use testbed::outcome::Failure;

use super::deadlines::Due;
use super::{CheckoutPool, Member, Place};
use crate::journal::Happening;
use crate::stats::CloseReason;
use crate::timers::TimerKey;

/// Backoffs in a row after which the server counts as down and queued
/// checkouts fail at once (`fail_fast_while_down`). Not the first: a
/// server restarting, or starting a moment after its client, refuses for
/// a while and then serves, and the checkouts that waited for it lose
/// nothing. With the default backoff (10 ms doubling, jittered down to
/// half) eight backoffs in a row take 0.57 to 1.13 s of refusals.
pub(super) const DOWN_AFTER: u32 = 8;

/// The reconnect gate: after a failed connect, no connect until a backoff
/// timer fires, then one probe at a time until one succeeds.
#[derive(Debug, Default)]
pub(super) struct Reconnect {
    /// Backoffs started since the last successful connect.
    failures: u32,
    /// The backoff timer; while it is set, the gate is closed.
    gate: Option<TimerKey>,
    /// The last connect error, until a connect succeeds.
    last_error: Option<Failure>,
    /// Replacements that died unused, one after another, since the server
    /// last answered a call.
    strikes: u32,
    /// When a connection last died unused, since the server last answered
    /// a call.
    last_unused_death: Option<Instant>,
    /// The standbys' backoff timer; while it is set, `min_idle` asks for
    /// no connection.
    standby_gate: Option<TimerKey>,
}

impl Reconnect {
    /// The last connect error, until a connect succeeds.
    pub(super) fn last_error(&self) -> Option<&Failure> {
        self.last_error.as_ref()
    }
}

/// Connections: opening, closing, reconnecting.
impl CheckoutPool {
    // ANCHOR: fill
    /// Opens connections while the pool is short of them: one per queued
    /// checkout, plus `min_idle` spare, counting the ones already idle or
    /// opening, within the size, and only while the reconnect gate is
    /// open (after a failure: one probe at a time).
    pub(super) fn fill(&mut self) -> io::Result<()> {
        loop {
            self.fail_fast_while_down();
            let standbys = match self.reconnect.standby_gate {
                None => self.config.knobs.min_idle,
                Some(_) => 0,
            };
            let wanted = self.waiters.len() + standbys;
            let census = &self.stats.census;
            let coming = self.idle.len() + census.opening();
            let room = census.live() < self.config.size;
            let gate_open = self.reconnect.gate.is_none()
                && (self.reconnect.failures == 0 || census.opening() == 0);
            if coming >= wanted || !room || !gate_open {
                return Ok(());
            }
            self.open_one()?;
        }
    }

    /// While the server is known to be down, queued checkouts fail at once
    /// with the connect error (`refused`), instead of each waiting out its
    /// checkout timeout for a connection that cannot come: five seconds an
    /// item, by default, against a server that refuses in a millisecond.
    /// "Known down" is chapter 5's circuit breaker, open: [`DOWN_AFTER`]
    /// backoffs in a row, the pool has no connection and none opening,
    /// and the backoff gate is closed. When the gate opens, the next
    /// checkout sends one probe and waits for it; its success closes the
    /// breaker, its failure fails the waiters again.
    fn fail_fast_while_down(&mut self) {
        let down = self.reconnect.failures >= DOWN_AFTER
            && self.reconnect.gate.is_some()
            && self.stats.census.live() == 0;
        if !down {
            return;
        }
        let now = Instant::now();
        while let Some(&id) = self.waiters.front() {
            self.give_up(id, now); // It leaves the queue.
        }
    }

    /// Starts one connect, in the lowest vacant place.
    fn open_one(&mut self) -> io::Result<()> {
        let index = *self
            .vacant
            .first()
            .expect("fill checked there is room, so a place is vacant");
        let id = SlotId::new(index);
        match Connection::connect(self.config.server) {
            Err(e) => self.connect_failed(None, Failure::from_io(&e)),
            Ok(conn) => {
                self.selector.add(conn.fd(), id.token(), conn.interest())?;
                let deadline = Instant::now() + self.config.connect_timeout;
                let timer = self.timers.insert(deadline, Due::Connect(id));
                self.vacant.remove(&index);
                self.places[index] = Place::Opening { conn, timer };
                self.stats.census.connecting();
                self.journal.note(Happening::Connecting(id));
            }
        }
        Ok(())
    }
    // ANCHOR_END: fill

    // ANCHOR: connect_failed
    /// A connect failed: close the gate for a backoff, unless one is
    /// already running (connects started before the first failure fail
    /// together; they are one failure, not a reason to wait longer).
    pub(super) fn connect_failed(&mut self, slot: Option<SlotId>, failure: Failure) {
        self.stats.connect_failures += 1;
        let retry_in = if self.reconnect.gate.is_none() {
            self.reconnect.failures += 1;
            let knobs = self.config.knobs;
            let delay = knobs.backoff.delay(self.reconnect.failures, knobs.seed);
            let gate = self.timers.insert(Instant::now() + delay, Due::Reconnect);
            self.reconnect.gate = Some(gate);
            Some(delay)
        } else {
            None
        };
        self.journal.note(Happening::ConnectFailed {
            slot,
            kind: failure.kind,
            retry_in,
        });
        self.reconnect.last_error = Some(failure);
    }
    // ANCHOR_END: connect_failed

    /// A handshake finished: connects work again, so the gate opens (for
    /// one probe at a time, until the server answers a call).
    fn connect_succeeded(&mut self) {
        if let Some(gate) = self.reconnect.gate.take() {
            self.timers.cancel(gate);
        }
        self.reconnect.last_error = None;
    }

    /// The server answered a call on a connection that lives on: it serves,
    /// so both gates open fully, both backoffs start again from their base,
    /// and the next connection to die unused is the first of its wave.
    pub(super) fn served(&mut self) {
        let reconnect = &mut self.reconnect;
        if reconnect.failures == 0
            && reconnect.strikes == 0
            && reconnect.standby_gate.is_none()
            && reconnect.last_unused_death.is_none()
        {
            return; // The busy path: nothing to reset.
        }
        if let Some(gate) = reconnect.standby_gate.take() {
            self.timers.cancel(gate);
        }
        reconnect.failures = 0;
        reconnect.strikes = 0;
        reconnect.last_unused_death = None;
    }

    /// The backoff timer `key` fired: the gate opens for one probe (`fill`
    /// sends it, and no other while it is out).
    pub(super) fn gate_opens(&mut self, key: TimerKey) {
        if self.reconnect.gate == Some(key) {
            self.reconnect.gate = None;
        }
    }

    // ANCHOR: died_unused
    /// A connection opened at `opened` died before it carried a request,
    /// and not of a `503`. If it replaced one that died the same way, the
    /// server takes connections but does not keep them: standbys wait for
    /// a backoff before the next is opened.
    pub(super) fn died_unused(&mut self, opened: Instant) {
        let now = Instant::now();
        let reconnect = &mut self.reconnect;
        let replacement = reconnect
            .last_unused_death
            .is_some_and(|death| opened > death);
        reconnect.last_unused_death = Some(now);
        if !replacement || reconnect.standby_gate.is_some() {
            return;
        }
        reconnect.strikes += 1;
        let knobs = self.config.knobs;
        let delay = knobs.backoff.delay(reconnect.strikes, knobs.seed);
        reconnect.standby_gate = Some(self.timers.insert(now + delay, Due::Standby));
        self.journal
            .note(Happening::StandbysHeld { retry_in: delay });
    }
    // ANCHOR_END: died_unused

    /// The standbys' backoff timer `key` fired: `min_idle` may open again.
    pub(super) fn standby_gate_opens(&mut self, key: TimerKey) {
        if self.reconnect.standby_gate == Some(key) {
            self.reconnect.standby_gate = None;
        }
    }

    /// Closes the open connection `id`: deregistered, then closed (stage
    /// 4's rule), its timer cancelled, its place vacant.
    pub(super) fn close_member(&mut self, id: SlotId, reason: CloseReason) -> io::Result<()> {
        let place = std::mem::replace(&mut self.places[id.index()], Place::Vacant);
        let Place::Open(member) = place else {
            unreachable!("close_member is called for open places");
        };
        if let Some(timer) = member.timer {
            self.timers.cancel(timer);
        }
        if member.holder.is_none() {
            self.idle.retain(|&s| s != id);
        }
        self.vacant.insert(id.index());
        self.stats.census.closed(reason);
        self.journal.note(Happening::Closed { slot: id, reason });
        member.slot.close(&mut self.selector)
    }

    /// The handshake in place `id` finished: the connection joins the
    /// pool, idle (or at once granted to the first queued checkout).
    pub(super) fn admit(&mut self, id: SlotId) -> io::Result<()> {
        let conn = self.take_opening(id)?;
        let slot = Slot::adopt(id, conn, &mut self.selector)?;
        self.vacant.remove(&id.index());
        self.places[id.index()] = Place::Open(Member {
            armed_at: slot.last_active(),
            opened: Instant::now(),
            slot,
            holder: None,
            timer: None,
        });
        self.stats.census.connected();
        self.connect_succeeded();
        self.journal.note(Happening::Connected(id));
        self.make_idle(id)
    }

    /// Ends the handshake in place `id` without a connection (it failed,
    /// it took too long, or the pool is closing): the socket is closed, the
    /// place vacant.
    pub(super) fn abandon_opening(&mut self, id: SlotId) -> io::Result<()> {
        let conn = self.take_opening(id)?;
        self.stats.census.abandoned();
        drop(conn); // Deregistered already: closing it now is safe.
        Ok(())
    }

    /// Takes the connection out of an opening place, which becomes vacant:
    /// its connect timer cancelled (harmless if it is the one that fired),
    /// the socket deregistered. It was registered as a bare connection
    /// while it opened; a slot that adopts it registers it again, under
    /// the same token.
    fn take_opening(&mut self, id: SlotId) -> io::Result<Connection> {
        let place = std::mem::replace(&mut self.places[id.index()], Place::Vacant);
        let Place::Opening { conn, timer } = place else {
            unreachable!("take_opening is called for opening places");
        };
        self.vacant.insert(id.index());
        self.timers.cancel(timer);
        self.selector.delete(conn.fd())?;
        Ok(conn)
    }
}
