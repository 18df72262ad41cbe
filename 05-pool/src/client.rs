//! The timed pool: stage 4's pool of connections on one selector, plus
//! everything that has a deadline, and checkouts instead of items.
//!
//! [`Client`] is named after its model, AnyEvent::Task's client: a pool of
//! up to `size` connections to one server, handed out as exclusive
//! [`Checkout`]s in FIFO order, each checkout running its calls in order on
//! its connection. From stage 4 it reuses, unchanged, the [`Selector`] (the
//! one waiting point), the non-blocking [`Connection`] and the [`Slot`] that
//! carries one request at a time on a connection; what it adds is what
//! stage 4 lacks:
//!
//! | knob | enforced by | on expiry |
//! | --- | --- | --- |
//! | `read_timeout` | a timer per running call, moved on every sign of progress | the call fails with `timeout`; the connection is closed |
//! | `idle_timeout` | a timer per idle connection | the connection is closed silently (unless `min_idle` keeps it) |
//! | `max_uses` | a count per connection, checked when its checkout ends | the connection is closed and replaced on demand |
//! | `min_idle` | `fill`, at the end of every turn and checkout | connections are opened ahead of demand |
//! | `checkout_timeout` | a timer per queued checkout | its calls fail with `pool_timeout` |
//! | connect failures | a backoff timer (the "gate") | one probe connect when it fires |
//!
//! # The loop
//!
//! [`Client::turn`] is one turn of the event loop, in a fixed order:
//!
//! 1. sleep until the earliest deadline of [`Timers`], or until a socket
//!    moves ([`next_timeout`], from stage 4);
//! 2. hand every event to its connection: handshakes finish, replies
//!    complete calls, a freed connection goes to the next call of its
//!    checkout, or to the first queued checkout;
//! 3. fire every deadline that has passed;
//! 4. open connections if checkouts are queued (or `min_idle` wants more)
//!    and the pool has room.
//!
//! Events come before deadlines, so a reply that arrived during the wait
//! counts even if its deadline passed meanwhile: the wait, not the server,
//! was late. But a connection freed by an event is never granted to a
//! checkout whose deadline has passed, even if its timer has not fired yet
//! in this turn: the grant looks at the deadline itself (`make_idle`), and
//! the checkout gives up instead. No checkout is ever granted a connection
//! after its checkout timeout.
//!
//! # Results, not callbacks
//!
//! Stage 4 calls a callback per item, as the seed does. A callback cannot
//! borrow the pool that calls it, so it cannot make the next call on its
//! checkout. Here [`Client::turn`] hands finished calls back as
//! [`Completion`]s, and the caller, holding the pool again, decides what to
//! call next.
//!
//! Not here: the knobs' meaning ([`crate::config`]), the backoff's
//! arithmetic ([`crate::backoff`]), the checkout handle
//! ([`crate::checkout`]).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io;
use std::time::{Duration, Instant};

use select::connection::Connection;
use select::event::Event;
use select::pool::next_timeout;
use select::selector::{Backend, Selector};
use select::slot::{Slot, SlotId, Turn};
use testbed::duration::format_duration;
use testbed::outcome::{ErrorKind, Failure};
use testbed::protocol::ItemId;
use testbed::workload::Item;

use crate::checkout::{
    Checkout, CheckoutId, Completion, Dropped, Holds, Pending, Ticket, inherited, never_ran,
};
use crate::config::Config;
use crate::journal::{Entry, Happening, Journal};
use crate::stats::{CloseReason, PoolStats};
use crate::timers::{TimerKey, Timers};

/// What a slot carries with the call it runs: enough to report it.
#[derive(Debug)]
struct Call {
    checkout: CheckoutId,
    item: ItemId,
    started: Instant,
}

// ANCHOR: due
/// What a timer does when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Due {
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
}
// ANCHOR_END: due

/// One place of the pool, numbered by its [`SlotId`] (the selector token
/// and the timeline lane).
#[derive(Debug)]
enum Place {
    Vacant,
    /// A handshake in progress. Not a [`Slot`] yet: a slot accepts a
    /// request at once (it queues it until the handshake ends), and a
    /// request queued on a connection that is then refused would fail with
    /// it; here a checkout gets a connection only once it exists.
    Opening {
        conn: Connection,
        timer: TimerKey,
    },
    /// A connection in the pool.
    Open(Member),
}

/// An open connection and who has it.
#[derive(Debug)]
struct Member {
    slot: Slot<Call>,
    /// The checkout holding it; `None` while it is idle in the pool.
    holder: Option<CheckoutId>,
    /// Its one timer: the idle timeout while idle, the read timeout while a
    /// call runs, none while a checkout holds it without a call.
    timer: Option<TimerKey>,
    /// The slot's `last_active` when the read timer was set: a later one is
    /// progress, and moves the deadline.
    armed_at: Instant,
}

/// The reconnect gate: after a failed connect, no connect until a backoff
/// timer fires, then one probe at a time until one succeeds.
#[derive(Debug, Default)]
struct Reconnect {
    /// Backoffs started since the last successful connect.
    failures: u32,
    /// The backoff timer; while it is set, the gate is closed.
    gate: Option<TimerKey>,
    /// The last connect error, until a connect succeeds.
    last_error: Option<Failure>,
}

// ANCHOR: client
/// A pool of up to `size` connections on one selector, handed out as
/// exclusive checkouts in FIFO order, with every timeout on one deadline
/// queue.
pub struct Client {
    config: Config,
    selector: Selector,
    /// `places[i]` is slot `i`: vacant, opening or open.
    places: Vec<Place>,
    /// Vacant places, lowest first (so lanes stay few on the timeline).
    vacant: BTreeSet<usize>,
    /// Idle connections, most recently used last: a checkout takes the
    /// last one (LIFO), so under light load the same few connections work
    /// and the rest stay idle long enough to time out.
    idle: Vec<SlotId>,
    /// Checkouts waiting for a connection, oldest first.
    waiters: VecDeque<CheckoutId>,
    /// Every live checkout.
    tickets: BTreeMap<CheckoutId, Ticket>,
    next_checkout: u64,
    /// Handles dropped since the last look (see [`crate::checkout`]).
    dropped: Dropped,
    /// Every deadline: read, idle, checkout, connect, reconnect.
    timers: Timers<Due>,
    reconnect: Reconnect,
    /// Calls finished and not yet handed back by `turn`.
    finished: Vec<Completion>,
    /// Calls made and not yet finished.
    outstanding: usize,
    /// Calls running on a connection.
    in_flight: usize,
    /// Places opening, and open.
    opening: usize,
    open: usize,
    /// The selector's output, reused by every wait.
    events: Vec<Event>,
    stats: PoolStats,
    journal: Journal,
}
// ANCHOR_END: client

impl Client {
    /// A pool with `config`, which opens its `min_idle` connections at once
    /// (they connect during the first turns). An invalid config is an
    /// `InvalidInput` error naming the knob.
    pub fn new(selector: Selector, config: Config) -> io::Result<Client> {
        config
            .validate()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let mut client = Client {
            config,
            selector,
            places: (0..config.size).map(|_| Place::Vacant).collect(),
            vacant: (0..config.size).collect(),
            idle: Vec::new(),
            waiters: VecDeque::new(),
            tickets: BTreeMap::new(),
            next_checkout: 0,
            dropped: Dropped::default(),
            timers: Timers::new(),
            reconnect: Reconnect::default(),
            finished: Vec::new(),
            outstanding: 0,
            in_flight: 0,
            opening: 0,
            open: 0,
            events: Vec::new(),
            stats: PoolStats::default(),
            journal: Journal::default(),
        };
        client.fill()?;
        Ok(client)
    }

    // ANCHOR: checkout
    /// Asks for a connection. The checkout gets one at once if one is idle
    /// and nobody queued before it; otherwise it queues (and the pool opens
    /// a connection for it if it has room), for at most the checkout
    /// timeout. Calls can be made on it right away: they wait with it.
    pub fn checkout(&mut self) -> io::Result<Checkout> {
        self.reap()?;
        let id = CheckoutId(self.next_checkout);
        self.next_checkout += 1;
        let now = Instant::now();
        self.tickets.insert(id, Ticket::new(now));
        self.stats.checkouts += 1;
        // FIFO: a newcomer may take an idle connection only if nobody is
        // queued ahead of it (and if somebody is, no connection is idle).
        if self.waiters.is_empty()
            && let Some(slot) = self.idle.pop()
        {
            self.assign(slot, id, false, now)?;
        } else {
            let timer = self
                .config
                .knobs
                .checkout_timeout
                .map(|t| self.timers.insert(now + t, Due::Checkout(id)));
            self.ticket(id).holds = Holds::Waiting { timer };
            self.waiters.push_back(id);
            self.stats.queued += 1;
            self.fill()?;
        }
        Ok(Checkout::new(id, &self.dropped))
    }

    /// Makes a call on `checkout`: `item` is sent on its connection after
    /// the calls made before it. Its outcome comes back from a later
    /// [`turn`](Self::turn) (at once if the checkout already failed).
    ///
    /// # Panics
    ///
    /// If `checkout` belongs to another pool.
    pub fn call(&mut self, checkout: &Checkout, item: Item) -> io::Result<()> {
        assert!(
            checkout.belongs_to(&self.dropped),
            "{} belongs to another pool",
            checkout.id()
        );
        self.reap()?;
        let id = checkout.id();
        self.outstanding += 1;
        let pending = Pending {
            item,
            made: Instant::now(),
        };
        let ticket = self.ticket(id);
        match &ticket.holds {
            Holds::Broken(fatal) => {
                let failure = inherited(fatal);
                self.finish(never_ran(pending.item.id, id, pending.made, failure));
            }
            Holds::Waiting { .. } => ticket.calls.push_back(pending),
            &Holds::Slot(slot) => {
                ticket.calls.push_back(pending);
                if self.member(slot).slot.is_free() {
                    self.next_call(slot, id)?;
                }
            }
        }
        Ok(())
    }
    // ANCHOR_END: checkout

    // ANCHOR: turn
    /// One turn of the loop: waits until a socket moves or the earliest
    /// deadline passes, handles what happened, and appends the calls that
    /// finished to `done`.
    ///
    /// Returns at once when nothing could ever wake the wait (no deadline,
    /// no call or handshake on the wire). If calls are still waiting then,
    /// nothing can ever run them (every connection is held by a checkout
    /// with no call, and there is no checkout timeout): that is an error,
    /// not a hang.
    pub fn turn(&mut self, done: &mut Vec<Completion>) -> io::Result<()> {
        self.reap()?;
        let before = Instant::now();
        let timeout = if self.finished.is_empty() {
            next_timeout(before, self.timers.next_deadline())
        } else {
            Some(Duration::ZERO) // Results to hand back: look, do not sleep.
        };
        if timeout.is_none() && self.in_flight == 0 && self.opening == 0 {
            if self.outstanding > 0 {
                return Err(self.stuck());
            }
            return Ok(());
        }
        self.selector.wait(&mut self.events, timeout)?;
        self.stats.waits += 1;
        self.stats.asleep += before.elapsed();
        self.handle_events()?;
        self.fire_timers(Instant::now())?;
        self.fill()?;
        done.append(&mut self.finished);
        Ok(())
    }
    // ANCHOR_END: turn

    /// Turns until every call made so far has finished; their completions
    /// are appended to `done`.
    pub fn drain(&mut self, done: &mut Vec<Completion>) -> io::Result<()> {
        while self.outstanding > 0 || !self.finished.is_empty() {
            self.turn(done)?;
        }
        Ok(())
    }

    /// Finishes every call ([`drain`](Self::drain)), then closes every
    /// connection. A checkout still held fails from then on with `closed`.
    pub fn close(&mut self, done: &mut Vec<Completion>) -> io::Result<()> {
        self.drain(done)?;
        for index in 0..self.places.len() {
            let id = SlotId::new(index);
            match &self.places[index] {
                Place::Vacant => {}
                Place::Opening { .. } => {
                    let (conn, timer) = self.take_opening(id);
                    self.timers.cancel(timer);
                    self.selector.delete(conn.fd())?;
                }
                Place::Open(member) => {
                    if let Some(holder) = member.holder {
                        let fatal = Failure::new(ErrorKind::Closed, "the pool was closed");
                        self.break_checkout(holder, fatal);
                    }
                    self.close_member(id, CloseReason::Shutdown)?;
                }
            }
        }
        done.append(&mut self.finished);
        Ok(())
    }

    /// Checkouts queued for a connection.
    pub fn waiting(&self) -> usize {
        self.waiters.len()
    }

    /// Calls made and not yet finished.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    /// Calls running on a connection.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Connections open or opening (never more than the size).
    pub fn connections(&self) -> usize {
        self.open + self.opening
    }

    /// Connections idle in the pool.
    pub fn idle(&self) -> usize {
        self.idle.len()
    }

    /// The counters so far.
    pub fn stats(&self) -> &PoolStats {
        &self.stats
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The selector's backend.
    pub fn backend(&self) -> Backend {
        self.selector.backend()
    }

    /// Starts keeping a journal of connections and checkouts.
    pub fn keep_journal(&mut self) {
        self.journal.keep();
    }

    /// The journal so far (empty unless [`keep_journal`](Self::keep_journal)).
    pub fn journal(&self) -> &[Entry] {
        self.journal.entries()
    }
}

// ANCHOR: handle_events
/// Events: handshakes and replies.
impl Client {
    fn handle_events(&mut self) -> io::Result<()> {
        let events = std::mem::take(&mut self.events);
        for event in &events {
            let id = SlotId::from_token(event.token);
            let Client {
                places, selector, ..
            } = self;
            match places.get_mut(id.index()) {
                Some(Place::Opening { .. }) => self.on_handshake(id)?,
                Some(Place::Open(member)) => {
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
        // Only the handshake, no read: the server has nothing to say to a
        // connection that has asked nothing, except `503 busy`, which the
        // slot will read as its first event.
        let handshake = Event {
            token: id.token(),
            readable: false,
            writable: true,
            closed: false,
        };
        match conn.on_ready(&handshake) {
            Err(e) => {
                let (conn, timer) = self.take_opening(id);
                self.timers.cancel(timer);
                self.selector.delete(conn.fd())?;
                self.connect_failed(Some(id), Failure::from_io(&e));
                Ok(())
            }
            Ok(()) if conn.is_connecting() => Ok(()),
            Ok(()) => {
                let (conn, timer) = self.take_opening(id);
                self.timers.cancel(timer);
                // Registered as a bare connection while it opened; from now
                // on the slot registers it, under the same token.
                self.selector.delete(conn.fd())?;
                let slot = Slot::adopt(id, conn, &mut self.selector)?;
                self.vacant.remove(&id.index());
                self.places[id.index()] = Place::Open(Member {
                    armed_at: slot.last_active(),
                    slot,
                    holder: None,
                    timer: None,
                });
                self.open += 1;
                self.stats.opened += 1;
                // The server is back (or was never away): reopen the gate.
                if let Some(gate) = self.reconnect.gate.take() {
                    self.timers.cancel(gate);
                }
                self.reconnect.failures = 0;
                self.reconnect.last_error = None;
                self.journal.note(Happening::Connected(id));
                self.make_idle(id)
            }
        }
    }

    // ANCHOR: settle
    /// Acts on what a connection's slot reported: a call that finished, a
    /// connection that died (`reason` says why it is closed), or progress.
    fn settle(&mut self, id: SlotId, turn: Turn<Call>, reason: CloseReason) -> io::Result<()> {
        let member = self.member(id);
        let holder = member.holder;
        let unused = member.slot.uses() == 0;
        let mut fatal = None;
        if let Some((call, outcome)) = turn.finished {
            if let Some(timer) = member.timer.take() {
                self.timers.cancel(timer);
            }
            self.in_flight -= 1;
            if let Err(failure) = &outcome {
                self.ticket(call.checkout).errored = true;
                if !turn.alive {
                    fatal = Some(failure.clone());
                }
            }
            self.finish(Completion {
                item: call.item,
                checkout: call.checkout,
                slot: Some(id),
                started: call.started,
                outcome,
            });
        }
        if !turn.alive {
            self.close_member(id, reason)?;
            match holder {
                // A fatal error stays on the checkout.
                Some(holder) => {
                    let fatal = fatal.unwrap_or_else(|| {
                        Failure::new(
                            ErrorKind::Closed,
                            "the connection closed while this checkout held it",
                        )
                    });
                    self.break_checkout(holder, fatal);
                }
                // A new connection that dies before its first request (the
                // server said `503 busy`, or closed it) was no connection.
                None if unused => self.connect_failed(
                    Some(id),
                    Failure::new(
                        ErrorKind::Closed,
                        "the server closed a new connection before its first request",
                    ),
                ),
                None => {}
            }
            return Ok(());
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
}
// ANCHOR_END: handle_events

/// Deadlines.
impl Client {
    // ANCHOR: fire_timers
    /// Fires every deadline that has passed at `now`, earliest first.
    fn fire_timers(&mut self, now: Instant) -> io::Result<()> {
        while let Some((key, due)) = self.timers.pop_due(now) {
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
                    let current = self.tickets.get(&checkout).map(|t| &t.holds);
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
                    let (conn, _) = self.take_opening(id);
                    self.selector.delete(conn.fd())?;
                    let limit = format_duration(self.config.knobs.connect_timeout);
                    let failure =
                        Failure::new(ErrorKind::Timeout, format!("no handshake within {limit}"));
                    self.connect_failed(Some(id), failure);
                }
                Due::Reconnect => {
                    if self.reconnect.gate == Some(key) {
                        self.reconnect.gate = None;
                    }
                }
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
    fn arm_read_timer(&mut self, id: SlotId) {
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
    fn give_up(&mut self, id: CheckoutId, now: Instant) {
        let ticket = self.ticket(id);
        let waited = now.saturating_duration_since(ticket.asked);
        if let Holds::Waiting { timer: Some(timer) } = ticket.holds {
            self.timers.cancel(timer); // Already gone if it fired.
        }
        self.waiters.retain(|&w| w != id);
        self.stats.gave_up += 1;
        self.stats.waited(waited);
        let limit = format_duration(waited);
        let failure = match &self.reconnect.last_error {
            Some(error) if self.open == 0 => Failure::new(
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
        let ticket = self.ticket(id);
        let queued = std::mem::take(&mut ticket.calls);
        for pending in queued {
            let done = never_ran(pending.item.id, id, pending.made, failure.clone());
            self.finish(done);
        }
        self.break_checkout(id, failure);
    }
    // ANCHOR_END: give_up
}

/// Checkouts: granting, running their calls, ending them.
impl Client {
    // ANCHOR: assign
    /// Gives the free connection `slot` to checkout `id` (which `queued`
    /// for it, or not) at `now`, and starts its first call, if it has one.
    fn assign(
        &mut self,
        slot: SlotId,
        id: CheckoutId,
        queued: bool,
        now: Instant,
    ) -> io::Result<()> {
        let ticket = self.ticket(id);
        let waited = now.saturating_duration_since(ticket.asked);
        if let Holds::Waiting { timer: Some(timer) } = ticket.holds {
            self.timers.cancel(timer);
        }
        self.ticket(id).holds = Holds::Slot(slot);
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
    fn next_call(&mut self, slot: SlotId, id: CheckoutId) -> io::Result<()> {
        let ticket = self.ticket(id);
        let Some(Pending { item, .. }) = ticket.calls.pop_front() else {
            if ticket.released {
                let errored = ticket.errored;
                self.tickets.remove(&id);
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
        let Client {
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
    fn make_idle(&mut self, slot: SlotId) -> io::Result<()> {
        let now = Instant::now();
        while let Some(&next) = self.waiters.front() {
            // A checkout whose deadline has passed gives up now, even if
            // its timer has not fired yet (this turn's events come before
            // its timers): no checkout gets a connection after its
            // checkout timeout.
            if let Holds::Waiting { timer: Some(key) } = self.ticket(next).holds
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
        let Some(ticket) = self.tickets.get_mut(&id) else {
            return Ok(());
        };
        ticket.released = true;
        if !ticket.calls.is_empty() {
            return Ok(()); // It ends when its last call has run.
        }
        let (holds, asked, errored) = (ticket.holds.clone(), ticket.asked, ticket.errored);
        match holds {
            Holds::Waiting { timer } => {
                self.tickets.remove(&id);
                if let Some(timer) = timer {
                    self.timers.cancel(timer);
                }
                self.waiters.retain(|&w| w != id);
                self.stats.waited(asked.elapsed());
            }
            // With a call running, `next_call` gives it back when it ends.
            Holds::Slot(slot) if !self.member(slot).slot.is_free() => {}
            Holds::Slot(slot) => {
                self.tickets.remove(&id);
                self.give_back(slot, errored)?;
            }
            Holds::Broken(_) => {
                self.tickets.remove(&id);
            }
        }
        Ok(())
    }

    /// Releases the checkouts whose handles were dropped.
    fn reap(&mut self) -> io::Result<()> {
        let dropped = std::mem::take(&mut *self.dropped.borrow_mut());
        for id in dropped {
            self.release(id)?;
        }
        Ok(())
    }

    /// A fatal error: it stays on the checkout (every later call fails with
    /// it), and the calls waiting on it fail now.
    fn break_checkout(&mut self, id: CheckoutId, fatal: Failure) {
        let Some(ticket) = self.tickets.get_mut(&id) else {
            return;
        };
        ticket.errored = true;
        let queued = std::mem::take(&mut ticket.calls);
        let released = ticket.released;
        for pending in queued {
            let done = never_ran(pending.item.id, id, pending.made, inherited(&fatal));
            self.finish(done);
        }
        if released {
            self.tickets.remove(&id);
        } else {
            self.ticket(id).holds = Holds::Broken(fatal);
        }
    }

    fn finish(&mut self, done: Completion) {
        self.outstanding -= 1;
        self.finished.push(done);
    }

    /// The error of a loop that would wait forever.
    fn stuck(&self) -> io::Error {
        io::Error::other(format!(
            "{} calls wait, but no call or handshake is on the wire and no deadline is set: \
             every connection is held by a checkout with no call (drop one, or set a checkout timeout)",
            self.outstanding
        ))
    }
}

/// Connections: opening, closing, reconnecting.
impl Client {
    // ANCHOR: fill
    /// Opens connections while the pool is short of them: one per queued
    /// checkout, plus `min_idle` spare, counting the ones already idle or
    /// opening, within the size, and only while the reconnect gate is
    /// open (after a failure: one probe at a time).
    fn fill(&mut self) -> io::Result<()> {
        loop {
            let wanted = self.waiters.len() + self.config.knobs.min_idle;
            let coming = self.idle.len() + self.opening;
            let room = self.open + self.opening < self.config.size;
            let gate_open = self.reconnect.gate.is_none()
                && (self.reconnect.failures == 0 || self.opening == 0);
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
                let deadline = Instant::now() + self.config.knobs.connect_timeout;
                let timer = self.timers.insert(deadline, Due::Connect(id));
                self.vacant.remove(&index);
                self.places[index] = Place::Opening { conn, timer };
                self.opening += 1;
                self.stats.peak = self.stats.peak.max(self.open + self.opening);
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
    fn connect_failed(&mut self, slot: Option<SlotId>, failure: Failure) {
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

    /// Closes the open connection `id`: deregistered, then closed (stage
    /// 4's rule), its timer cancelled, its place vacant.
    fn close_member(&mut self, id: SlotId, reason: CloseReason) -> io::Result<()> {
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
        self.open -= 1;
        self.stats.closed(reason);
        self.journal.note(Happening::Closed { slot: id, reason });
        member.slot.close(&mut self.selector)
    }

    /// Takes the connection out of an opening place (the caller
    /// deregisters it); the place becomes vacant.
    fn take_opening(&mut self, id: SlotId) -> (Connection, TimerKey) {
        let place = std::mem::replace(&mut self.places[id.index()], Place::Vacant);
        let Place::Opening { conn, timer } = place else {
            unreachable!("take_opening is called for opening places");
        };
        self.vacant.insert(id.index());
        self.opening -= 1;
        (conn, timer)
    }

    fn member(&mut self, id: SlotId) -> &mut Member {
        match &mut self.places[id.index()] {
            Place::Open(member) => member,
            _ => unreachable!("slot {} is not open", id.index()),
        }
    }

    fn ticket(&mut self, id: CheckoutId) -> &mut Ticket {
        self.tickets
            .get_mut(&id)
            .expect("a checkout's ticket lives until it is released and done")
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("backend", &self.backend())
            .field("open", &self.open)
            .field("opening", &self.opening)
            .field("idle", &self.idle.len())
            .field("waiting", &self.waiters.len())
            .field("outstanding", &self.outstanding)
            .finish()
    }
}
