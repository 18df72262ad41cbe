//! Connections: opening them, closing them, and reconnecting politely.
//!
//! The pool opens a connection when it is short of them (queued checkouts,
//! or fewer idle than `min_idle`) and has room; a handshake is a place of
//! its own until it finishes. A failed connect closes the reconnect gate
//! for a backoff; when the gate opens, one probe goes out, and the first
//! success opens it fully.
//!
//! Not here: the handshake's end ([`super::events`]), the backoff's
//! arithmetic ([`crate::backoff`]).

use std::io;
use std::time::Instant;

use select::connection::Connection;
use select::slot::{Slot, SlotId};
use testbed::outcome::Failure;

use super::deadlines::Due;
use super::{Member, Place, Pool};
use crate::journal::Happening;
use crate::stats::CloseReason;
use crate::timers::TimerKey;

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
}

impl Reconnect {
    /// The last connect error, until a connect succeeds.
    pub(super) fn last_error(&self) -> Option<&Failure> {
        self.last_error.as_ref()
    }
}

/// Connections: opening, closing, reconnecting.
impl Pool {
    // ANCHOR: fill
    /// Opens connections while the pool is short of them: one per queued
    /// checkout, plus `min_idle` spare, counting the ones already idle or
    /// opening, within the size, and only while the reconnect gate is
    /// open (after a failure: one probe at a time).
    pub(super) fn fill(&mut self) -> io::Result<()> {
        loop {
            let wanted = self.waiters.len() + self.config.knobs.min_idle;
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

    /// A handshake finished: the server is back (or was never away), so
    /// the gate opens fully and the backoff starts again from its base.
    fn connect_succeeded(&mut self) {
        if let Some(gate) = self.reconnect.gate.take() {
            self.timers.cancel(gate);
        }
        self.reconnect.failures = 0;
        self.reconnect.last_error = None;
    }

    /// The backoff timer `key` fired: the gate opens for one probe (`fill`
    /// sends it, and no other while it is out).
    pub(super) fn gate_opens(&mut self, key: TimerKey) {
        if self.reconnect.gate == Some(key) {
            self.reconnect.gate = None;
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
