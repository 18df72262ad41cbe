//! Events: what the selector reported, handed to the place it is about.
//!
//! A place that is opening gets its handshake checked; an open connection
//! gets the event through stage 4's [`Slot`], which reads, writes and
//! finishes calls, and answers with a [`Turn`]. `settle` then acts on that
//! turn: a finished call goes back to the caller, a freed connection goes
//! to its checkout's next call, a dead one is buried. Burying decides the
//! one question this file owns: is a dead connection a failed *connect*
//! (the reconnect gate closes), or only a closed one?
//!
//! Not here: deadlines ([`super::deadlines`]), which checkout gets a
//! connection ([`super::grants`]), opening and closing connections
//! ([`super::connections`]).

use std::io;
use std::time::Instant;

use select::slot::{Slot, SlotId, Turn};
use testbed::outcome::{ErrorKind, Failure};
use testbed::protocol::Reply;

use super::{Call, CheckoutPool, Place};
use crate::checkout::FinishedCall;
use crate::stats::CloseReason;

// ANCHOR: handle_events
/// Events: handshakes and replies.
impl CheckoutPool {
    /// Hands each event of the last wait to the place it is about.
    pub(super) fn handle_events(&mut self) -> io::Result<()> {
        let events = std::mem::take(&mut self.events);
        for event in &events {
            let id = SlotId::from_token(event.token);
            let CheckoutPool {
                places, selector, ..
            } = self;
            match places.get_mut(id.index()) {
                Some(Place::Opening { .. }) => self.on_handshake(id)?,
                Some(Place::Open(member)) => {
                    if let Some(refusal) = turned_away(&member.slot) {
                        // Not handed to the slot: it would read the `503`
                        // as an unsolicited line, and lose what it means.
                        self.bury(id, CloseReason::Error, Some(refusal))?;
                        continue;
                    }
                    let turn = member.slot.on_event(event, selector);
                    self.settle(id, turn, CloseReason::Error)?;
                }
                // Closed earlier in this batch: the event is about a
                // descriptor that is gone. (No connection is opened during
                // a batch, so no new one can have taken its token.)
                Some(Place::Vacant) | None => {}
            }
        }
        self.events = events;
        Ok(())
    }

    /// An event on a connection still opening: the handshake finished, or
    /// failed, or (readiness is a hint) neither yet.
    fn on_handshake(&mut self, id: SlotId) -> io::Result<()> {
        let Place::Opening { conn, .. } = &mut self.places[id.index()] else {
            unreachable!("on_handshake is called for opening places");
        };
        // Only the handshake, no read: a server has nothing to say to a
        // connection that has asked nothing, except `503 busy`, which
        // `handle_events` looks for in the connection's next event.
        match conn.finish_connect() {
            Err(e) => {
                self.abandon_opening(id)?;
                self.connect_failed(Some(id), Failure::from_io(&e));
                Ok(())
            }
            Ok(false) => Ok(()),
            Ok(true) => self.admit(id),
        }
    }

    // ANCHOR: settle
    /// Acts on what a connection's slot reported: a call that finished, a
    /// connection that died (`reason` says why it is closed), or progress.
    pub(super) fn settle(
        &mut self,
        id: SlotId,
        turn: Turn<Call>,
        reason: CloseReason,
    ) -> io::Result<()> {
        let member = self.member(id);
        let holder = member.holder;
        let mut fatal = None;
        let finished = turn.finished.is_some();
        if let Some((call, outcome)) = turn.finished {
            if let Some(timer) = member.timer.take() {
                self.timers.cancel(timer);
            }
            self.in_flight -= 1;
            if let Err(failure) = &outcome {
                self.record(call.checkout).errored = true;
                if !turn.alive {
                    fatal = Some(failure.clone());
                }
            }
            self.finish(FinishedCall {
                item: call.item,
                checkout: call.checkout,
                slot: Some(id),
                started: call.started,
                // Now, before `next_call` below sends this connection's
                // next item.
                finished: Instant::now(),
                outcome,
            });
        }
        if !turn.alive {
            return self.bury(id, reason, fatal);
        }
        if finished {
            self.served();
        }
        match holder {
            Some(holder) if self.member(id).slot.is_free() => self.next_call(id, holder),
            Some(_) => {
                // Still waiting for a reply. Anything read or written
                // since the read timer was set is progress: the timer
                // measures silence, like stage 1's SO_RCVTIMEO.
                if self.member(id).slot.last_active() != self.member(id).armed_at {
                    self.arm_read_timer(id);
                }
                Ok(())
            }
            None => Ok(()),
        }
    }
    // ANCHOR_END: settle

    // ANCHOR: bury
    /// The connection `id` is dead: close it (`reason` says why), and fail
    /// the checkout that holds it, if any, with `fatal` (or with `closed`).
    ///
    /// Only one death is also a failed connect, and closes the reconnect
    /// gate: `refused`, the server's `503 busy`. SLOW/1 sends it at once to a
    /// connection over the server's limit, before reading anything, so it
    /// answers the connection, not a request: the handshake worked, but the
    /// server would not take the connection, and the next one would fare no
    /// better until it has room. Any other death of an open connection (the
    /// server closed it while it sat idle, restarted, sent garbage) says
    /// nothing about whether a new connect would work: it is a close, with
    /// its reason, and the pool replaces it at once if it needs to.
    ///
    /// The `503` arrives one of two ways: as the `refused` outcome of the
    /// connection's first call, or, on a connection with no call yet, found
    /// by `turned_away` before the slot reads it.
    ///
    /// A connection that dies before it carried anything, of something
    /// other than a `503`, may be a server that takes connections and drops
    /// them: `died_unused` paces the standbys that replace it.
    fn bury(&mut self, id: SlotId, reason: CloseReason, fatal: Option<Failure>) -> io::Result<()> {
        let member = self.member(id);
        let (holder, unused, opened) = (member.holder, member.slot.uses() == 0, member.opened);
        self.close_member(id, reason)?;
        let refused = fatal
            .as_ref()
            .filter(|f| f.kind == ErrorKind::Refused)
            .cloned();
        if let Some(holder) = holder {
            // A fatal error stays on the checkout.
            let fatal = fatal.unwrap_or_else(|| {
                Failure::new(
                    ErrorKind::Closed,
                    "the connection closed while this checkout held it",
                )
            });
            self.break_checkout(holder, fatal);
        }
        match refused {
            Some(refusal) => self.connect_failed(Some(id), refusal),
            None if unused => self.died_unused(opened),
            None => {}
        }
        Ok(())
    }
    // ANCHOR_END: bury
}
// ANCHOR_END: handle_events

/// How much of a fresh connection's first line the pool peeks at. The
/// status code is what matters; a `503` line fits whole (the testbed's is
/// `503 busy`), and a longer one is still read as `503`.
const PEEK_LEN: usize = 64;

/// The server's refusal, if it sent one, on a connection that has carried
/// no request yet.
///
/// A fresh connection is idle, or held with no call: the slot reads nothing
/// for it, and would take a `503` for an unsolicited line (a protocol error
/// that tells the pool nothing). So before the slot reads, the pool peeks
/// (`MSG_PEEK`: the bytes stay in the socket) at the first line. Only a
/// connection never used can be refused this way; a used one is not looked
/// at, which keeps this system call off the busy path.
fn turned_away(slot: &Slot<Call>) -> Option<Failure> {
    if slot.uses() > 0 || !slot.is_free() {
        return None;
    }
    let mut head = [0u8; PEEK_LEN];
    // `WouldBlock` (a spurious wake-up), the end of the stream, an error:
    // not a refusal; the slot finds out what it is.
    let len = slot.connection().stream().peek(&mut head).ok()?;
    let line = head[..len].split(|&b| b == b'\n').next()?;
    match Reply::parse(std::str::from_utf8(line).ok()?) {
        Ok(reply @ Reply::Busy(_)) => Some(Failure::new(
            ErrorKind::Refused,
            format!("the server turned the connection away: {reply}"),
        )),
        _ => None,
    }
}
