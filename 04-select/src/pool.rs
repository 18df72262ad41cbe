//! The pool: up to `size` connections, created when needed, all waited on
//! at once by one selector. The source article's `Pool` package, in Rust.
//!
//! The source article's methods, and where they went:
//!
//! | source article | here | what it does |
//! | --- | --- | --- |
//! | `async($req, $ok, $err)` | [`SlotPool::submit`] | find a slot, send the first line, remember the callback |
//! | `_find()` | [`SlotPool::find_slot`] | a free slot, else a new one if under `size`, else wait |
//! | `_create()` | [`Slot::open`] | connect (without waiting) and register |
//! | `dispose($timeout)` | [`SlotPool::dispose`] | one wait, and the progress it allows |
//! | `close()` | [`SlotPool::close`] | the loop: wait until nothing is in flight |
//!
//! # The loop
//!
//! Every wait in the pool goes through [`SlotPool::dispose`], which asks the
//! selector to sleep until some connection moves or the earliest pending
//! deadline passes ([`next_timeout`]), then hands each event to its slot.
//! [`SlotPool::drain`] repeats that while anything is in flight and returns
//! when nothing is left, the Portuguese article's "if the loop has nothing
//! to wait for, the program is done".
//!
//! Stage 4 has no timers of its own: the only deadline is the one a caller
//! passes to `dispose`. So a server that never answers makes `drain` wait
//! forever; the harness refuses `hang` faults for this stage, and stage 5
//! adds read deadlines to [`next_timeout`]'s list.
//!
//! # Failures
//!
//! A failure of one connection (refused, closed, garbled) fails the item it
//! carried, through that item's callback, and empties its slot; the next
//! item that needs the slot connects again. Only a failure of the selector
//! itself (including `select(2)` refusing a descriptor at or above
//! `FD_SETSIZE`) is an error of the pool: then the items in flight are
//! abandoned, without their callbacks.

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use testbed::outcome::Outcome;
use testbed::protocol::{ItemId, Phases};
use testbed::turns::TurnLog;
use testbed::workload::Item;

use crate::event::Event;
use crate::selector::Selector;
use crate::slot::{Slot, SlotId, Turn};

/// What a pool connects to and how much it may open.
#[derive(Debug, Clone, Copy)]
pub struct PoolConfig {
    /// The slow server.
    pub server: SocketAddr,
    /// At most this many connections (the source article's `size`).
    pub size: usize,
    /// Single- or two-phase requests.
    pub phases: Phases,
}

/// A finished item, as its callback receives it: which item, where and
/// since when it ran, and how it ended.
///
/// (Stage 5 hands back a `Completion` for a call made on a checkout; this
/// is the simpler record of stage 4, where an item is all there is.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedItem {
    /// The item.
    pub item: ItemId,
    /// The slot (and so the connection, and the timeline lane) it ran on.
    pub slot: SlotId,
    /// When the pool started sending it.
    pub started: Instant,
    /// What happened.
    pub outcome: Outcome,
}

/// The callback an item's completion is handed to: once, whether it
/// succeeded or failed (the source article's `$on_success` and `$on_error` in one).
pub type OnDone<'a> = Box<dyn FnOnce(FinishedItem) + 'a>;

/// What a slot carries for each item: enough to call back.
struct Job<'a> {
    item: ItemId,
    started: Instant,
    on_done: OnDone<'a>,
}

/// What the pool's event loop did: the connections it opened and lost, its
/// waits, the events they returned and the time asleep in them. Counters a
/// reader can compare across backends.
///
/// (Stage 5's `PoolStats` is about checkouts and queues; these are only the
/// loop's.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoopStats {
    /// Connections opened, including the ones reopened after a failure.
    pub connections_opened: u64,
    /// Connections closed because they broke (or never connected).
    pub connections_broken: u64,
    /// Calls to the selector's `wait`.
    pub waits: u64,
    /// Events those waits returned.
    pub events: u64,
    /// Time spent asleep inside those waits: the rest of the run was the
    /// loop's own work (system calls, parsing, callbacks).
    pub waiting: Duration,
}

// ANCHOR: pool
/// A pool of up to `size` non-blocking connections on one selector.
///
/// Named for what it holds, [`Slot`]s, each carrying one item: stage 5's
/// pool, which hands out whole connections as checkouts, is
/// `pool::CheckoutPool`.
///
/// `'a` is how long the callbacks may borrow from their caller (the
/// results database, for instance).
///
/// # Example
///
/// Ten items on four connections to the slow server, each outcome handed
/// to its item's callback:
///
/// ```
/// use std::cell::RefCell;
/// use std::time::Duration;
///
/// use select::pool::{SlotPool, PoolConfig};
/// use select::{Backend, Selector};
/// use testbed::latency::LatencyModel;
/// use testbed::protocol::Phases;
/// use testbed::server::{ServerConfig, SlowServer};
/// use testbed::workload::items;
///
/// let server = SlowServer::spawn(ServerConfig {
///     latency: LatencyModel::Fixed(Duration::from_millis(1)),
///     ..ServerConfig::default()
/// })?;
/// let config = PoolConfig {
///     server: server.addr(),
///     size: 4,
///     phases: Phases::Two,
/// };
/// let finished = RefCell::new(Vec::new());
/// let mut pool = SlotPool::new(Selector::new(Backend::Epoll)?, config);
/// for item in items(10, 1) {
///     // Returns at once while a connection is free; waits when all four
///     // are busy, calling the callbacks of the items that finish.
///     pool.submit(item, Box::new(|done| finished.borrow_mut().push(done)))?;
/// }
/// // The loop: wait until every item is back, then close the connections.
/// pool.close()?;
/// assert_eq!(finished.borrow().len(), 10);
/// assert!(finished.borrow().iter().all(|done| done.outcome.is_ok()));
/// server.shutdown();
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct SlotPool<'a> {
    config: PoolConfig,
    selector: Selector,
    /// `slots[i]` is slot `i`: `None` until it is first needed, and again
    /// after its connection broke.
    slots: Vec<Option<Slot<Job<'a>>>>,
    /// Items in flight (slots with a job).
    in_flight: usize,
    /// The selector's output, reused by every wait.
    events: Vec<Event>,
    stats: LoopStats,
    /// Each wait's wake-up, for the timeline page.
    turns: TurnLog,
}
// ANCHOR_END: pool

impl<'a> SlotPool<'a> {
    /// An empty pool: no connection is opened until an item needs one.
    pub fn new(selector: Selector, config: PoolConfig) -> SlotPool<'a> {
        assert!(config.size > 0, "a pool of no connections can send nothing");
        SlotPool {
            config,
            selector,
            slots: (0..config.size).map(|_| None).collect(),
            in_flight: 0,
            events: Vec::new(),
            stats: LoopStats::default(),
            turns: TurnLog::new(),
        }
    }

    // ANCHOR: submit
    /// Sends `item` on a free connection, waiting for one if all `size` are
    /// busy; `on_done` is called with its outcome, later, from some call
    /// that waits (`submit`, `dispose` or `close`).
    ///
    /// Errors only when the selector fails; a connection's failure goes to
    /// the item's callback.
    pub fn submit(&mut self, item: Item, on_done: OnDone<'a>) -> io::Result<()> {
        let id = self.find_slot()?;
        let job = Job {
            item: item.id,
            started: Instant::now(),
            on_done,
        };
        let slot = match &mut self.slots[id.index()] {
            Some(slot) => slot,
            empty => match Slot::open(id, self.config.server, &mut self.selector)? {
                Ok(slot) => {
                    self.stats.connections_opened += 1;
                    empty.insert(slot)
                }
                Err(failure) => {
                    // `connect` itself failed: this item fails, the slot
                    // stays empty for the next one to try again.
                    self.stats.connections_broken += 1;
                    let Job {
                        item,
                        started,
                        on_done,
                    } = job;
                    on_done(FinishedItem {
                        item,
                        slot: id,
                        started,
                        outcome: Err(failure),
                    });
                    return Ok(());
                }
            },
        };
        self.in_flight += 1;
        let turn = slot.start(item, self.config.phases, job, &mut self.selector);
        self.settle(id, turn)
    }

    /// The source article's `_find`: a free connection if there is one (it is already
    /// connected: cheapest), else an empty place if the pool is under its
    /// size (lazy creation), else wait for a connection to free up.
    pub fn find_slot(&mut self) -> io::Result<SlotId> {
        loop {
            let free = self
                .slots
                .iter()
                .position(|s| s.as_ref().is_some_and(Slot::is_free));
            if let Some(i) = free.or_else(|| self.slots.iter().position(Option::is_none)) {
                return Ok(SlotId::new(i));
            }
            self.dispose(None)?;
        }
    }
    // ANCHOR_END: submit

    // ANCHOR: dispose
    /// One turn of the event loop: waits until a connection moves or
    /// `timeout` passes (`None`: until a connection moves), then lets each
    /// ready slot make progress, calling the callbacks of the items that
    /// finish. Returns the number of events handled (0 after a timeout, or
    /// at once when nothing is in flight: there would be nothing to wait
    /// for).
    pub fn dispose(&mut self, timeout: Option<Duration>) -> io::Result<usize> {
        let deadline = timeout.map(|t| Instant::now() + t);
        while self.in_flight > 0 {
            let before = Instant::now();
            let wait = next_timeout(before, deadline);
            self.turns.sleeping();
            self.selector.wait(&mut self.events, wait)?;
            self.turns.woke(self.events.len());
            self.stats.waits += 1;
            self.stats.waiting += before.elapsed();
            if !self.events.is_empty() {
                return self.handle_events();
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
        }
        Ok(0)
    }

    fn handle_events(&mut self) -> io::Result<usize> {
        let events = std::mem::take(&mut self.events);
        self.stats.events += events.len() as u64;
        for event in &events {
            let id = SlotId::from_token(event.token);
            // A slot closed earlier in this batch has no connection now;
            // its remaining events are about a descriptor that is gone.
            let Some(slot) = self.slots.get_mut(id.index()).and_then(Option::as_mut) else {
                continue;
            };
            let turn = slot.on_event(event, &mut self.selector);
            self.settle(id, turn)?;
        }
        let handled = events.len();
        self.events = events;
        Ok(handled)
    }
    // ANCHOR_END: dispose

    /// Reports a finished item to its callback and closes a dead slot.
    fn settle(&mut self, id: SlotId, turn: Turn<Job<'a>>) -> io::Result<()> {
        if !turn.alive
            && let Some(slot) = self.slots[id.index()].take()
        {
            self.stats.connections_broken += 1;
            slot.close(&mut self.selector)?;
        }
        if let Some((job, outcome)) = turn.finished {
            self.in_flight -= 1;
            self.turns.done(1);
            (job.on_done)(FinishedItem {
                item: job.item,
                slot: id,
                started: job.started,
                outcome,
            });
        }
        Ok(())
    }

    // ANCHOR: drain
    /// The loop: waits and makes progress until nothing is in flight, then
    /// returns. Every callback has been called when it does.
    pub fn drain(&mut self) -> io::Result<()> {
        while self.in_flight > 0 {
            self.dispose(None)?;
        }
        Ok(())
    }
    // ANCHOR_END: drain

    /// The source article's `close`: finishes every item in flight ([`drain`](Self::drain)),
    /// then closes every connection.
    pub fn close(&mut self) -> io::Result<()> {
        self.drain()?;
        for slot in self.slots.iter_mut().filter_map(Option::take) {
            slot.close(&mut self.selector)?;
        }
        Ok(())
    }

    /// Items in flight.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Open connections.
    pub fn connections(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// The counters so far.
    pub fn stats(&self) -> LoopStats {
        self.stats
    }

    /// The loop's recorded turns: one per wait.
    pub fn turns(&self) -> &TurnLog {
        &self.turns
    }

    /// The selector's backend.
    pub fn backend(&self) -> crate::selector::Backend {
        self.selector.backend()
    }
}

// ANCHOR: next_timeout
/// How long the loop's next wait may sleep: until the earliest of the
/// pending deadlines, or without limit (`None`) when nothing pending has
/// one. A deadline already past gives zero: look, do not sleep.
pub fn next_timeout(
    now: Instant,
    deadlines: impl IntoIterator<Item = Instant>,
) -> Option<Duration> {
    deadlines
        .into_iter()
        .min()
        .map(|earliest| earliest.saturating_duration_since(now))
}
// ANCHOR_END: next_timeout

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_timeout_is_the_earliest_deadline() {
        let now = Instant::now();
        let ms = Duration::from_millis;
        assert_eq!(next_timeout(now, []), None);
        assert_eq!(
            next_timeout(now, [now + ms(30), now + ms(10)]),
            Some(ms(10))
        );
        assert_eq!(
            next_timeout(now + ms(50), [now + ms(10)]),
            Some(Duration::ZERO)
        );
    }
}
