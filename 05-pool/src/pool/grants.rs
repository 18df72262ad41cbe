//! Grants: which checkout gets a connection, running its calls in order,
//! and ending it.
//!
//! A free connection goes to the oldest queued checkout whose time is not
//! up, or else onto the idle stack. A checkout runs its calls one at a time
//! on its connection; when its handle is dropped and its last call has
//! run, its connection goes back to the pool, unless an error made it
//! suspect or it is worn out. A fatal error breaks the checkout instead:
//! every later call on it fails at once.
//!
//! Not here: the checkout handle and its record ([`crate::checkout`]),
//! giving up on a checkout that waited too long ([`super::deadlines`]).

use std::io;
use std::time::Instant;

use select::slot::SlotId;
use testbed::outcome::Failure;

use super::deadlines::Due;
use super::{Call, CheckoutPool, Place};
use crate::checkout::{CheckoutId, FinishedCall, Holds, Pending, inherited, never_ran};
use crate::journal::Happening;
use crate::stats::CloseReason;

/// Checkouts: granting, running their calls, ending them.
impl CheckoutPool {
    // ANCHOR: assign
    /// Gives the free connection `slot` to checkout `id` (which `queued`
    /// for it, or not) at `now`, and starts its first call, if it has one.
    pub(super) fn assign(
        &mut self,
        slot: SlotId,
        id: CheckoutId,
        queued: bool,
        now: Instant,
    ) -> io::Result<()> {
        let record = self.record(id);
        let waited = now.saturating_duration_since(record.asked);
        if let Holds::Waiting { timer: Some(timer) } = record.holds {
            self.timers.cancel(timer);
        }
        self.record(id).holds = Holds::Slot(slot);
        if queued {
            self.stats.waited(waited);
        }
        let member = self.member(slot);
        member.holder = Some(id);
        if let Some(idle_timer) = member.timer.take() {
            self.timers.cancel(idle_timer);
        }
        self.journal.note(Happening::Assigned {
            slot,
            checkout: id,
            waited,
        });
        self.next_call(slot, id)
    }

    /// `slot`, held by checkout `id`, has no call running: start the
    /// checkout's next call; or, if the checkout has ended and has no call
    /// left, give the connection back.
    pub(super) fn next_call(&mut self, slot: SlotId, id: CheckoutId) -> io::Result<()> {
        let record = self.record(id);
        let Some(Pending { item, .. }) = record.calls.pop_front() else {
            if record.released {
                let errored = record.errored;
                self.records.remove(&id);
                return self.give_back(slot, errored);
            }
            return Ok(()); // Held with nothing to do: the holder decides.
        };
        let call = Call {
            checkout: id,
            item: item.id,
            started: Instant::now(),
        };
        let phases = self.config.phases;
        let CheckoutPool {
            places, selector, ..
        } = self;
        let Place::Open(member) = &mut places[slot.index()] else {
            unreachable!("a held connection is open");
        };
        let turn = member.slot.start(item, phases, call, selector);
        self.in_flight += 1;
        self.arm_read_timer(slot);
        // A failed send finishes the call at once, with the connection.
        self.settle(slot, turn, CloseReason::Error)
    }
    // ANCHOR_END: assign

    // ANCHOR: give_back
    /// A checkout has ended: its connection goes back to the pool, unless
    /// it is suspect (an error answer on the checkout) or worn out
    /// (`max_uses`).
    fn give_back(&mut self, slot: SlotId, errored: bool) -> io::Result<()> {
        let knobs = self.config.knobs;
        let member = self.member(slot);
        member.holder = None;
        let uses = member.slot.uses();
        if errored && !knobs.reuse_after_error {
            return self.close_member(slot, CloseReason::Error);
        }
        if knobs.max_uses.is_some_and(|max| uses >= max) {
            return self.close_member(slot, CloseReason::MaxUses);
        }
        self.journal.note(Happening::Returned(slot));
        self.make_idle(slot)
    }

    /// A free connection: to the first queued checkout whose time is not
    /// up, else onto the idle list with an idle timer.
    pub(super) fn make_idle(&mut self, slot: SlotId) -> io::Result<()> {
        let now = Instant::now();
        while let Some(&next) = self.waiters.front() {
            // A checkout whose deadline has passed gives up now, even if
            // its timer has not fired yet (this turn's events come before
            // its timers): no checkout gets a connection after its
            // checkout timeout.
            if let Holds::Waiting { timer: Some(key) } = self.record(next).holds
                && key.deadline() <= now
            {
                self.give_up(next, now);
                continue;
            }
            self.waiters.pop_front();
            return self.assign(slot, next, true, now);
        }
        let timer = self
            .config
            .knobs
            .idle_timeout
            .map(|t| self.timers.insert(now + t, Due::Idle(slot)));
        self.member(slot).timer = timer;
        self.idle.push(slot);
        Ok(())
    }
    // ANCHOR_END: give_back

    /// Gives the connection back if `id` is over: released, and with no
    /// call left to run.
    fn release(&mut self, id: CheckoutId) -> io::Result<()> {
        let Some(record) = self.records.get_mut(&id) else {
            return Ok(());
        };
        record.released = true;
        if !record.calls.is_empty() {
            return Ok(()); // It ends when its last call has run.
        }
        let (holds, asked, errored) = (record.holds.clone(), record.asked, record.errored);
        match holds {
            Holds::Waiting { timer } => {
                self.records.remove(&id);
                if let Some(timer) = timer {
                    self.timers.cancel(timer);
                }
                self.waiters.retain(|&w| w != id);
                self.stats.waited(asked.elapsed());
            }
            // With a call running, `next_call` gives it back when it ends.
            Holds::Slot(slot) if !self.member(slot).slot.is_free() => {}
            Holds::Slot(slot) => {
                self.records.remove(&id);
                self.give_back(slot, errored)?;
            }
            Holds::Broken(_) => {
                self.records.remove(&id);
            }
        }
        Ok(())
    }

    /// Releases the checkouts whose handles were dropped.
    pub(super) fn reap(&mut self) -> io::Result<()> {
        let dropped = std::mem::take(&mut *self.dropped.borrow_mut());
        for id in dropped {
            self.release(id)?;
        }
        Ok(())
    }

    /// A fatal error: it stays on the checkout (every later call fails with
    /// it), and the calls waiting on it fail now.
    pub(super) fn break_checkout(&mut self, id: CheckoutId, fatal: Failure) {
        let Some(record) = self.records.get_mut(&id) else {
            return;
        };
        record.errored = true;
        let queued = std::mem::take(&mut record.calls);
        let released = record.released;
        for pending in queued {
            let done = never_ran(pending.item.id, id, pending.made, inherited(&fatal));
            self.finish(done);
        }
        if released {
            self.records.remove(&id);
        } else {
            self.record(id).holds = Holds::Broken(fatal);
        }
    }

    pub(super) fn finish(&mut self, done: FinishedCall) {
        self.outstanding -= 1;
        self.finished.push(done);
    }
}
