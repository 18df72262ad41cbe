//! Deadlines: what each timer means, and what the pool does when one
//! passes.
//!
//! Every timeout of the pool is an entry in one
//! [`Timers`](crate::timers::Timers) queue, tagged with a [`Due`]. After
//! each wait, `fire_timers` takes out the ones that have passed, earliest
//! first. A timer is cancelled whenever what it guards changes (a reply
//! came, the idle connection was taken), so most never fire, and one that
//! fires is still current; `fire_timers` checks it anyway, as belt and
//! braces, before it acts.
//!
//! Not here: the queue itself ([`crate::timers`]), the loop that sleeps
//! until the earliest deadline ([`CheckoutPool::turn`]).

use std::io;
use std::time::Instant;

use select::slot::SlotId;
use testbed::duration::format_duration;
use testbed::outcome::{ErrorKind, Failure};

use super::{CheckoutPool, Place};
use crate::checkout::{CheckoutId, Holds, never_ran};
use crate::journal::Happening;
use crate::stats::CloseReason;
use crate::timers::TimerKey;

// ANCHOR: due
/// What a timer does when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Due {
    /// This handshake took too long.
    Connect(SlotId),
    /// This connection has been idle too long.
    Idle(SlotId),
    /// The call on this connection has had no reply for too long.
    Read(SlotId),
    /// This checkout has waited too long for a connection.
    Checkout(CheckoutId),
    /// The backoff after a failed connect is over: try again.
    Reconnect,
    /// The backoff after standbys died unused is over: open them again.
    Standby,
}
// ANCHOR_END: due

/// Deadlines.
impl CheckoutPool {
    // ANCHOR: fire_timers
    /// Fires every deadline that has passed at `now`, earliest first.
    pub(super) fn fire_timers(&mut self, now: Instant) -> io::Result<()> {
        while let Some((key, due)) = self.timers.pop_due(now) {
            // Counted even when stale (its connection moved on): the loop
            // woke for it all the same.
            self.turns.timers(1);
            match due {
                Due::Read(id) => {
                    if !self.owns_timer(id, key) {
                        continue;
                    }
                    self.member(id).timer = None;
                    let read_timeout = self.config.read_timeout.unwrap_or_default();
                    let failure = Failure::new(
                        ErrorKind::Timeout,
                        format!("no reply within {}", format_duration(read_timeout)),
                    );
                    // The connection is closed, never reused: the late
                    // reply would be read as the answer to the next call.
                    let turn = self.member(id).slot.fail(failure);
                    self.settle(id, turn, CloseReason::Timeout)?;
                }
                Due::Idle(id) => {
                    if !self.owns_timer(id, key) {
                        continue;
                    }
                    self.member(id).timer = None;
                    // Keep the hot standby: only the idle connections
                    // beyond `min_idle` time out.
                    if self.idle.len() > self.config.knobs.min_idle {
                        self.close_member(id, CloseReason::Idle)?;
                    }
                }
                Due::Checkout(checkout) => {
                    let current = self.records.get(&checkout).map(|t| &t.holds);
                    if current == Some(&Holds::Waiting { timer: Some(key) }) {
                        self.give_up(checkout, now);
                    }
                }
                Due::Connect(id) => {
                    let Place::Opening { timer, .. } = &self.places[id.index()] else {
                        continue;
                    };
                    if *timer != key {
                        continue;
                    }
                    self.abandon_opening(id)?;
                    let limit = format_duration(self.config.connect_timeout);
                    let failure =
                        Failure::new(ErrorKind::Timeout, format!("no handshake within {limit}"));
                    self.connect_failed(Some(id), failure);
                }
                Due::Reconnect => self.gate_opens(key),
                Due::Standby => self.standby_gate_opens(key),
            }
        }
        Ok(())
    }
    // ANCHOR_END: fire_timers

    /// True when `key` is the current timer of the open member `id` (a
    /// timer is cancelled whenever its member changes state, so this is a
    /// belt-and-braces check).
    fn owns_timer(&self, id: SlotId, key: TimerKey) -> bool {
        matches!(&self.places[id.index()], Place::Open(m) if m.timer == Some(key))
    }

    /// Sets (or moves) the read deadline of the call running on `id`.
    pub(super) fn arm_read_timer(&mut self, id: SlotId) {
        let Some(read_timeout) = self.config.read_timeout else {
            return;
        };
        let member = self.member(id);
        let since = member.slot.last_active();
        member.armed_at = since;
        if let Some(old) = member.timer.take() {
            self.timers.cancel(old);
        }
        let timer = self.timers.insert(since + read_timeout, Due::Read(id));
        self.member(id).timer = Some(timer);
    }

    // ANCHOR: give_up
    /// A queued checkout's time is up: it leaves the queue, and its calls,
    /// made and to come, fail. With `pool_timeout` if the pool has
    /// connections (they were all busy); with the connect error if it has
    /// none and the server cannot be reached (the server is down, and
    /// `refused` says so better than "the pool was busy").
    pub(super) fn give_up(&mut self, id: CheckoutId, now: Instant) {
        let record = self.record(id);
        let waited = now.saturating_duration_since(record.asked);
        if let Holds::Waiting { timer: Some(timer) } = record.holds {
            self.timers.cancel(timer); // Already gone if it fired.
        }
        self.waiters.retain(|&w| w != id);
        self.stats.gave_up += 1;
        self.stats.waited(waited);
        let limit = format_duration(waited);
        let failure = match self.reconnect.last_error() {
            Some(error) if self.stats.census.open() == 0 => Failure::new(
                error.kind,
                format!("no connection within {limit}: {}", error.detail),
            ),
            _ => Failure::new(
                ErrorKind::PoolTimeout,
                format!("no free connection within {limit}"),
            ),
        };
        self.journal.note(Happening::GaveUp {
            checkout: id,
            kind: failure.kind,
            waited,
        });
        // The calls already made waited for exactly this: they get the
        // failure itself; calls made later inherit it.
        let record = self.record(id);
        let queued = std::mem::take(&mut record.calls);
        for pending in queued {
            let done = never_ran(pending.item.id, id, pending.made, failure.clone());
            self.finish(done);
        }
        self.break_checkout(id, failure);
    }
    // ANCHOR_END: give_up
}
