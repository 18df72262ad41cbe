//! Stage 6 as a [`Stage`]: one fiber per item, at most `--conns` at once,
//! each running 01-sync's request, unchanged, over a [`FiberTcpStream`].
//!
//! The shape is the Ruby article's: a [`TaskLimiter`] of `--conns` fibers,
//! and a loop that spawns one fiber per item through it, suspending when
//! the limit is reached. The loop itself runs in a fiber, because waiting
//! at the limit is a fiber's wait.
//!
//! Connections outlive fibers: a fiber takes a connection *slot* when it
//! starts and puts it back when it ends, so 20,000 items through 100 fibers
//! use 100 connections, not 20,000. A slot is also the item's lane on the
//! timeline. The limiter admits at most `--conns` fibers and there are
//! `--conns` slots, so a starting fiber always finds one, as long as every
//! fiber gives its slot back, which it does even when it panics
//! (`SlotLoan`).
//!
//! Not here: the scheduler (`scheduler.rs`); the request (01-sync).

use std::cell::RefCell;
use std::io;
use std::net::SocketAddr;
use std::ops::{Deref, DerefMut};
use std::rc::Rc;
use std::time::{Duration, Instant};

use testbed::conn::Conn;
use testbed::machine::peak_rss_mib;
use testbed::outcome::{Failure, Outcome};
use testbed::protocol::Phases;
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::store::{Lane, Store, StoreError};
use testbed::workload::Item;

use crate::limiter::TaskLimiter;
use crate::scheduler::{Scheduler, Summary};
use crate::stacks::DEFAULT_STACK_SIZE;
use crate::stream::FiberTcpStream;

/// How many fiber panics the report lists by name (the count is always
/// there): a bug that panics every fiber should not print 20,000 lines.
const PANICS_LISTED: usize = 5;

/// The fiber stage.
///
/// # Examples
///
/// The stage as the binary runs it, on an embedded slow server: one fiber
/// per item, at most eight at once, stage 1's blocking request in each.
///
/// ```
/// use scheduler::Fibers;
/// use testbed::cli::Settings;
/// use testbed::harness::execute;
///
/// let settings = Settings {
///     items: 40,
///     conns: 8,
///     latency: "1ms".parse().expect("a latency"),
///     ..Settings::default()
/// };
/// let report = execute(&Fibers::default(), &settings)?.report;
/// assert_eq!((report.ok, report.lost, report.wrong), (40, 0, 0));
/// assert_eq!((report.conns, report.db_connections), (8, 1));
/// # Ok::<(), testbed::harness::HarnessError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Fibers {
    /// Each fiber's stack, in bytes (`--stack-kib`).
    stack_size: usize,
    /// Items whose fiber panics where it would record: see
    /// [`Fibers::panic_when_recording`].
    panic_when_recording: Option<fn(&Item) -> bool>,
}

impl Default for Fibers {
    fn default() -> Self {
        Fibers::with_stack_size(DEFAULT_STACK_SIZE)
    }
}

impl Fibers {
    /// The stage, with fiber stacks of `stack_size` bytes (`--stack-kib`).
    pub fn with_stack_size(stack_size: usize) -> Fibers {
        Fibers {
            stack_size,
            panic_when_recording: None,
        }
    }

    /// Each fiber's stack, in bytes.
    pub fn stack_size(&self) -> usize {
        self.stack_size
    }

    /// A test hook: the fiber of every item `pick` chooses panics where it
    /// would record the item's outcome, as a bug in the request or the
    /// store would. It exists because nothing else can make a fiber panic
    /// on demand (bad input from the network is an outcome, not a panic),
    /// and the stage must survive a panicking fiber without losing its
    /// connection slot. Hidden: not for use outside tests.
    #[doc(hidden)]
    pub fn panic_when_recording(self, pick: fn(&Item) -> bool) -> Fibers {
        Fibers {
            panic_when_recording: Some(pick),
            ..self
        }
    }
}

impl Stage for Fibers {
    fn name(&self) -> &'static str {
        "scheduler"
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let sched = Scheduler::with_stack_size(self.stack_size)?;
        let conns = scenario.conns.min(scenario.items.len()).max(1);
        let shared = Rc::new(Shared {
            sched: sched.clone(),
            server: scenario.server,
            phases: scenario.phases,
            read_timeout: scenario.read_timeout,
            connect_timeout: scenario.connect_timeout,
            panic_when_recording: self.panic_when_recording,
            store: RefCell::new(scenario.open_store()?),
            store_error: RefCell::new(None),
            // Popped from the end: lane 0 goes first.
            slots: RefCell::new((0..conns).rev().map(ConnSlot::new).collect()),
        });

        // ANCHOR: stage_run
        let limiter = TaskLimiter::new(&sched, conns);
        let items = scenario.items.clone();
        let spawner = {
            let shared = shared.clone();
            sched.spawn(move || -> io::Result<()> {
                for item in items {
                    let shared = shared.clone();
                    // Waits here while `conns` fibers are running.
                    limiter.spawn(move || shared.process(&item))?;
                }
                Ok(())
            })?
        };
        let summary = sched.run().map_err(io::Error::other)?;
        // ANCHOR_END: stage_run

        match spawner.try_join() {
            Some(Ok(Ok(()))) => {}
            Some(Ok(Err(e))) => return Err(StageError::Io(e)),
            other => return Err(StageError::Io(io::Error::other(format!("{other:?}")))),
        }
        if let Some(error) = shared.store_error.borrow_mut().take() {
            return Err(error.into());
        }
        let mut stats = run_stats(conns, &summary);
        stats.loop_turns(summary.turns.since(scenario.epoch));
        Ok(stats)
    }
}

/// What every item fiber shares: where to send, where to record.
struct Shared {
    sched: Scheduler,
    server: SocketAddr,
    phases: Phases,
    read_timeout: Option<Duration>,
    /// How long a connect may take (`--connect-timeout`).
    connect_timeout: Duration,
    /// The test hook of [`Fibers::panic_when_recording`].
    panic_when_recording: Option<fn(&Item) -> bool>,
    /// The one database connection (the source article's `openDB()`): fibers take
    /// turns, and a record never suspends, so a `RefCell` is enough. A
    /// record does block the thread, for microseconds: the one exception to
    /// the scheduler's invariant, stated (and argued) in `scheduler.rs`.
    store: RefCell<Store>,
    /// The first failure to record; the run reports it at the end.
    store_error: RefCell<Option<StoreError>>,
    /// Free connection slots.
    slots: RefCell<Vec<ConnSlot>>,
}

/// A lane of the timeline and the connection that serves it, if open.
struct ConnSlot {
    lane: Lane,
    conn: Option<Conn<FiberTcpStream>>,
}

impl ConnSlot {
    fn new(index: usize) -> ConnSlot {
        ConnSlot {
            lane: Lane::of(index),
            conn: None,
        }
    }
}

/// A connection slot on loan to one fiber. It goes back to the free list
/// however the fiber ends: with its connection by [`SlotLoan::give_back`],
/// or without it when a panic unwinds the fiber. Without this, a panic
/// would lose the slot, and after `--conns` panics no fiber could start.
struct SlotLoan<'a> {
    slots: &'a RefCell<Vec<ConnSlot>>,
    /// `Some` until given back.
    slot: Option<ConnSlot>,
}

impl<'a> SlotLoan<'a> {
    /// Takes a free slot.
    ///
    /// # Panics
    ///
    /// If none is free, which would be a bug: the limiter admits `conns`
    /// fibers at once, there are `conns` slots, and every fiber gives its
    /// slot back.
    fn take(slots: &'a RefCell<Vec<ConnSlot>>) -> SlotLoan<'a> {
        let slot = slots
            .borrow_mut()
            .pop()
            .expect("the limiter admits `conns` fibers and there are `conns` slots");
        SlotLoan {
            slots,
            slot: Some(slot),
        }
    }

    /// Gives the slot back with its connection, for the next item.
    fn give_back(mut self) {
        if let Some(slot) = self.slot.take() {
            self.slots.borrow_mut().push(slot);
        }
    }
}

impl Deref for SlotLoan<'_> {
    type Target = ConnSlot;

    fn deref(&self) -> &ConnSlot {
        self.slot.as_ref().expect("a slot on loan until given back")
    }
}

impl DerefMut for SlotLoan<'_> {
    fn deref_mut(&mut self) -> &mut ConnSlot {
        self.slot.as_mut().expect("a slot on loan until given back")
    }
}

impl Drop for SlotLoan<'_> {
    fn drop(&mut self) {
        // Still here only if `give_back` was never reached: the fiber is
        // unwinding from a panic. Its connection may be mid-request, with a
        // reply on its way that the next item would read as its own, so it
        // is closed; the slot's next fiber reconnects.
        if let Some(mut slot) = self.slot.take() {
            slot.conn = None;
            self.slots.borrow_mut().push(slot);
        }
    }
}

impl Shared {
    // ANCHOR: same_request
    /// One item, start to finish: the body of an item's fiber. The request
    /// is 01-sync's, unchanged, and so is the loop body around it: connect
    /// if the slot has no connection, send, drop the connection if it
    /// broke. It believes it is blocking, and it is, but only this fiber.
    fn process(&self, item: &Item) {
        let started = Instant::now();
        let mut slot = SlotLoan::take(&self.slots);
        let open = || self.connect();
        let outcome = sync::request_reusing(&mut slot.conn, open, item, self.phases);
        self.record(item, slot.lane, started, &outcome);
        slot.give_back();
    }
    // ANCHOR_END: same_request

    /// Records the item's outcome; a failure is kept for the end of the run.
    fn record(&self, item: &Item, lane: Lane, started: Instant, outcome: &Outcome) {
        if self.panic_when_recording.is_some_and(|pick| pick(item)) {
            panic!(
                "item {} panics where it would be recorded (test hook)",
                item.id
            );
        }
        let recorded = self
            .store
            .borrow_mut()
            .record(item.id, lane, started, outcome);
        if let Err(error) = recorded {
            self.store_error.borrow_mut().get_or_insert(error);
        }
    }

    /// Opens a fiber-aware connection to the server, within the connect
    /// timeout: a server that drops SYNs fails the item with `timeout`.
    fn connect(&self) -> Result<Conn<FiberTcpStream>, Failure> {
        let mut stream =
            FiberTcpStream::connect_timeout(&self.sched, self.server, self.connect_timeout)
                .map_err(|e| Failure::from_io(&e))?;
        stream.set_read_timeout(self.read_timeout);
        Ok(Conn::new(stream))
    }
}

/// The report's view of a run: concurrency for Little's law, the
/// scheduler's counters, and the process's peak memory.
fn run_stats(conns: usize, summary: &Summary) -> RunStats {
    let stats = &summary.stats;
    let mut run = RunStats::new(conns);
    run.figure("fibers_spawned", stats.spawned);
    run.figure("peak_fibers", stats.peak_live);
    run.figure("switches", stats.switches);
    run.figure("polls", stats.polls);
    run.figure("timers_fired", stats.timers_fired);
    run.figure("stacks_created", stats.stacks_created);
    run.figure("stack_kib", stats.stack_size / 1024);
    run.figure("fiber_panics", summary.panics.len());
    if let Some(mib) = peak_rss_mib() {
        run.figure("peak_rss_mib", mib);
    }
    for panic in summary.panics.iter().take(PANICS_LISTED) {
        run.note(format!("{} panicked: {}", panic.fiber, panic.message));
    }
    // A fiber that kept the thread: the one lint that applies to fibers
    // (they keep no wakers to lose, and switch only where they wait).
    if let Some(long) = summary.long_resume {
        run.lint(long.to_string());
    }
    run
}
