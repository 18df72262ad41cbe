//! The timed pool: stage 4's pool of connections on one selector, plus
//! everything that has a deadline, and checkouts instead of items.
//!
//! [`CheckoutPool`] is AnyEvent::Task's client under the name of what it is: a pool
//! of up to `size` connections to one server, handed out as exclusive
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
//! | replacements that die unused | a backoff timer of the standbys' own | `min_idle` opens again |
//!
//! # The loop
//!
//! [`CheckoutPool::turn`] is one turn of the event loop, in a fixed order:
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
//! Stage 4 calls a callback per item, as the source article does. A callback cannot
//! borrow the pool that calls it, so it cannot make the next call on its
//! checkout. Here [`CheckoutPool::turn`] hands finished calls back as
//! [`FinishedCall`]s, and the caller, holding the pool again, decides what to
//! call next.
//!
//! # Layout
//!
//! This file holds the type, the public methods that drive it (checkout,
//! call, turn, drain, close) and the loop. The loop's steps live in child
//! modules, each an `impl CheckoutPool` block over the same private
//! fields:
//!
//! - `events`: handshakes, replies, and connections that die;
//! - `deadlines`: what each timer means, and what happens when it fires;
//! - `grants`: which checkout gets a connection, its calls, its end;
//! - `connections`: opening, closing, and the reconnect gate;
//! - `observe`: what the pool tells its caller about itself (counts,
//!   stats, the journal), which changes nothing.
//!
//! Not here: the knobs' meaning ([`crate::config`]), the backoff's
//! arithmetic ([`crate::backoff`]), the checkout handle
//! ([`crate::checkout`]).

mod connections;
mod deadlines;
mod events;
mod grants;
mod observe;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io;
use std::time::{Duration, Instant};

use select::connection::Connection;
use select::event::Event;
use select::pool::next_timeout;
use select::selector::Selector;
use select::slot::{Slot, SlotId};
use testbed::outcome::{ErrorKind, Failure};
use testbed::protocol::ItemId;
use testbed::turns::TurnLog;
use testbed::workload::Item;

use crate::checkout::{
    Checkout, CheckoutId, CheckoutRecord, Dropped, FinishedCall, Holds, Pending, inherited,
    never_ran,
};
use crate::config::Config;
use crate::journal::Journal;
use crate::stats::{CloseReason, Stats};
use crate::timers::{TimerKey, Timers};

use self::connections::Reconnect;
use self::deadlines::Due;

/// What a slot carries with the call it runs: enough to report it.
#[derive(Debug)]
struct Call {
    checkout: CheckoutId,
    item: ItemId,
    started: Instant,
}

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
    /// When its handshake finished.
    opened: Instant,
}

/// A pool of up to `size` connections on one selector, handed out as
/// exclusive checkouts in FIFO order, with every timeout on one deadline
/// queue.
///
/// Everything runs on the caller's thread, in the caller's calls: a
/// [`checkout`](Self::checkout) or a [`call`](Self::call) only queues
/// work (and starts connects), and each [`turn`](Self::turn) waits once,
/// does the I/O that became possible, fires the deadlines that passed,
/// and hands back the calls that finished.
///
/// # Examples
///
/// The loop of the stage: one checkout per item, then turns until every
/// call has finished.
///
/// ```
/// use pool::{Backend, Config, CheckoutPool, Selector};
/// use testbed::server::{ServerConfig, SlowServer};
/// use testbed::workload::items;
///
/// let server = SlowServer::spawn(ServerConfig {
///     latency: "1ms".parse().expect("a latency"),
///     ..ServerConfig::default()
/// })?;
/// let mut pool = CheckoutPool::new(Selector::new(Backend::Epoll)?, Config::new(server.addr(), 2))?;
/// for item in items(5, 1) {
///     let checkout = pool.checkout()?;
///     pool.call(&checkout, item)?;
///     // `checkout` drops here: it ends once its call has run.
/// }
/// let mut done = Vec::new();
/// while pool.outstanding() > 0 {
///     pool.turn(&mut done)?;
/// }
/// assert_eq!(done.len(), 5);
/// assert!(done.iter().all(|call| call.outcome.is_ok()));
/// assert!(pool.stats().opened() <= 2, "{}", pool.stats().connections_line());
/// # Ok::<(), std::io::Error>(())
/// ```
// ANCHOR: pool
pub struct CheckoutPool {
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
    records: BTreeMap<CheckoutId, CheckoutRecord>,
    next_checkout: u64,
    /// Handles dropped since the last look (see [`crate::checkout`]).
    dropped: Dropped,
    /// Every deadline: read, idle, checkout, connect, reconnect.
    timers: Timers<Due>,
    reconnect: Reconnect,
    /// Calls finished and not yet handed back by `turn`.
    finished: Vec<FinishedCall>,
    /// Calls made and not yet finished.
    outstanding: usize,
    /// Calls running on a connection.
    in_flight: usize,
    /// The selector's output, reused by every wait.
    events: Vec<Event>,
    stats: Stats,
    journal: Journal,
    /// Each wait's wake-up, for the timeline page.
    turns: TurnLog,
}
// ANCHOR_END: pool

impl CheckoutPool {
    /// A pool with `config`, which opens its `min_idle` connections at once
    /// (they connect during the first turns). An invalid config is an
    /// `InvalidInput` error naming the knob.
    pub fn new(selector: Selector, config: Config) -> io::Result<CheckoutPool> {
        config
            .validate()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let mut pool = CheckoutPool {
            config,
            selector,
            places: (0..config.size).map(|_| Place::Vacant).collect(),
            vacant: (0..config.size).collect(),
            idle: Vec::new(),
            waiters: VecDeque::new(),
            records: BTreeMap::new(),
            next_checkout: 0,
            dropped: Dropped::default(),
            timers: Timers::new(),
            reconnect: Reconnect::default(),
            finished: Vec::new(),
            outstanding: 0,
            in_flight: 0,
            events: Vec::new(),
            stats: Stats::default(),
            journal: Journal::default(),
            turns: TurnLog::new(),
        };
        pool.fill()?;
        Ok(pool)
    }

    // ANCHOR: checkout
    /// Asks for a connection. The checkout gets one at once if one is idle
    /// and nobody queued before it; otherwise it queues (and the pool opens
    /// a connection for it if it has room), for at most the checkout
    /// timeout. Calls can be made on it right away: they wait with it.
    ///
    /// ```
    /// use pool::{Backend, Config, CheckoutPool, Selector};
    /// use testbed::server::{ServerConfig, SlowServer};
    /// use testbed::workload::items;
    ///
    /// let server = SlowServer::spawn(ServerConfig::default())?;
    /// let mut pool = CheckoutPool::new(Selector::new(Backend::Poll)?, Config::new(server.addr(), 1))?;
    /// let (first, second) = (pool.checkout()?, pool.checkout()?);
    /// pool.call(&second, items(1, 1).remove(0))?;
    /// let mut done = Vec::new();
    /// pool.turn(&mut done)?; // The one connection opens: `first` has it.
    /// assert_eq!((pool.waiting(), done.len()), (1, 0));
    /// drop(first); // Now `second` gets it, and its call runs.
    /// pool.drain(&mut done)?;
    /// assert_eq!(done[0].checkout, second.id());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn checkout(&mut self) -> io::Result<Checkout> {
        self.reap()?;
        let id = CheckoutId::new(self.next_checkout);
        self.next_checkout += 1;
        let now = Instant::now();
        self.records.insert(id, CheckoutRecord::new(now));
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
            self.record(id).holds = Holds::Waiting { timer };
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
    /// ```
    /// use pool::{Backend, Config, CheckoutPool, Selector};
    /// use testbed::server::{ServerConfig, SlowServer};
    /// use testbed::workload::items;
    ///
    /// let server = SlowServer::spawn(ServerConfig::default())?;
    /// let mut pool = CheckoutPool::new(Selector::new(Backend::Poll)?, Config::new(server.addr(), 3))?;
    /// let checkout = pool.checkout()?;
    /// for item in items(3, 1) {
    ///     pool.call(&checkout, item)?; // In order, on one connection.
    /// }
    /// let mut done = Vec::new();
    /// pool.drain(&mut done)?;
    /// let order: Vec<u64> = done.iter().map(|call| call.item.0).collect();
    /// assert_eq!(order, [0, 1, 2]);
    /// assert!(done.iter().all(|call| call.slot == done[0].slot));
    /// # Ok::<(), std::io::Error>(())
    /// ```
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
        let record = self.record(id);
        match &record.holds {
            Holds::Broken(fatal) => {
                let failure = inherited(fatal);
                self.finish(never_ran(pending.item.id, id, pending.made, failure));
            }
            Holds::Waiting { .. } => record.calls.push_back(pending),
            &Holds::Slot(slot) => {
                record.calls.push_back(pending);
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
    pub fn turn(&mut self, done: &mut Vec<FinishedCall>) -> io::Result<()> {
        self.reap()?;
        let before = Instant::now();
        let timeout = if self.finished.is_empty() {
            next_timeout(before, self.timers.next_deadline())
        } else {
            Some(Duration::ZERO) // Results to hand back: look, do not sleep.
        };
        if timeout.is_none() && self.in_flight == 0 && self.stats.census.opening() == 0 {
            if self.outstanding > 0 {
                return Err(self.stuck());
            }
            return Ok(());
        }
        self.turns.sleeping();
        self.selector.wait(&mut self.events, timeout)?;
        self.turns.woke(self.events.len());
        self.stats.waits += 1;
        self.stats.asleep += before.elapsed();
        self.handle_events()?;
        self.fire_timers(Instant::now())?;
        self.fill()?;
        self.turns.done(self.finished.len());
        done.append(&mut self.finished);
        Ok(())
    }
    // ANCHOR_END: turn

    /// Turns until every call made so far has finished; their completions
    /// are appended to `done`.
    pub fn drain(&mut self, done: &mut Vec<FinishedCall>) -> io::Result<()> {
        while self.outstanding > 0 || !self.finished.is_empty() {
            self.turn(done)?;
        }
        Ok(())
    }

    /// Finishes every call ([`drain`](Self::drain)), then closes every
    /// connection. A checkout still held fails from then on with `closed`.
    pub fn close(&mut self, done: &mut Vec<FinishedCall>) -> io::Result<()> {
        self.drain(done)?;
        for index in 0..self.places.len() {
            let id = SlotId::new(index);
            match &self.places[index] {
                Place::Vacant => {}
                Place::Opening { .. } => self.abandon_opening(id)?,
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
}

/// Lookups, and the error of a loop that cannot go on.
impl CheckoutPool {
    fn member(&mut self, id: SlotId) -> &mut Member {
        match &mut self.places[id.index()] {
            Place::Open(member) => member,
            _ => unreachable!("slot {} is not open", id.index()),
        }
    }

    fn record(&mut self, id: CheckoutId) -> &mut CheckoutRecord {
        self.records
            .get_mut(&id)
            .expect("a checkout's record lives until it is released and done")
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
