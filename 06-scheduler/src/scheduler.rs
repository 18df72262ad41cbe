//! The scheduler: fibers, the ready queue, timers, and the loop that runs
//! them until nothing is left. This is the core of the crate; everything
//! else (sockets, join handles, other threads, locks) is built on it.
//!
//! This is the Ruby article's `FiberScheduler` in Rust. A fiber is a
//! function with its own stack (corosensei switches between stacks); it
//! runs until it would wait, and then, instead of blocking the thread, it
//! records *what* it waits for and switches back to the scheduler, which
//! runs another fiber. When the thing arrives (a reply, a deadline, an
//! `unblock`), the fiber goes back on the ready queue, and later continues
//! exactly where it stopped, as if its call had simply taken a while.
//!
//! # Layout
//!
//! This file holds the [`Scheduler`] handle, `start` and the loop. Its parts, in reading order:
//!
//! - `scheduler/table.rs`: the fiber table and [`FiberId`];
//! - `scheduler/wait.rs`: the ways a fiber stops (`yield_now`, `sleep`,
//!   `block`) and [`WakeTicket`]s, with the one function every wake-up
//!   goes through;
//! - `scheduler/switch.rs`: the stack switch, in and out of a fiber, and
//!   the crate's only `unsafe` code;
//! - `scheduler/inbox.rs`: unblocks sent from other threads;
//! - `scheduler/deadlock.rs`: noticing that nothing can wake the fibers
//!   left, and unwinding them;
//! - `scheduler/summary.rs`: what a run reports ([`Summary`], [`RunError`]).
//!
//! The loop sleeps in the reactor (`reactor.rs`), which it owns and which
//! knows nothing about fibers. The core imports none of the modules built
//! on it: `io.rs` (sockets), `join.rs` (`spawn` and `JoinHandle`),
//! `remote.rs` and the locks.
//!
//! # The loop
//!
//! [`Scheduler::run`] is the source article's `close`: it loops until no fiber is
//! left. One turn of the loop:
//!
//! 1. take the unblocks sent from other threads ([`crate::Remote`]);
//! 2. run the ready fibers, in order, until none is ready (a fiber woken
//!    or spawned by another runs in the same turn), but for no more than
//!    `TURN_BUDGET` switches, so fibers that keep waking each other cannot
//!    starve the sockets;
//! 3. work out how long it may sleep: not at all if a fiber is ready,
//!    until the earliest timer if there is one, else until an event;
//! 4. sleep in `poll` (the reactor), and make the fibers whose sockets are
//!    ready, ready;
//! 5. fire the timers that are due.
//!
//! If in step 3 there is nothing that could ever wake a fiber (no timer,
//! no fiber waiting on I/O, no handle another thread could unblock with)
//! while fibers are still blocked, they are deadlocked: `run` says so with
//! [`RunError::Deadlock`] instead of sleeping forever.
//!
//! # Architecture invariant
//!
//! The scheduler never makes a blocking system call: `poll` is the only
//! place the thread sleeps. A fiber that calls `std::thread::sleep` or a
//! blocking `read` stops *every* fiber; the fiber-aware versions are
//! [`Scheduler::sleep`] and [`crate::FiberTcpStream`].
//!
//! **The one exception is the stage's database write.** [`crate::Fibers`]
//! records each outcome from inside the item's fiber with
//! `testbed::store::Store::record`, a SQLite `INSERT` that holds the thread
//! until SQLite returns. With the in-memory database the harness uses by
//! default, that is a write to memory; with a `--db` file (WAL mode,
//! `synchronous = NORMAL`), an append to the log with no `fsync`. Both
//! take microseconds. The rare longer one is the commit that finds a
//! thousand pages in the log (every few hundred items): it checkpoints,
//! copying the log into the database and syncing it, for milliseconds.
//! None waits on a lock: the stage is the database's only writer, so
//! SQLite's busy timeout (up to 10 s for another writer) never starts.
//! Microseconds per item, against milliseconds of waiting on the server,
//! is what this stage pays to keep the source article's shape, a fiber that records
//! its own result. A real program would not call a blocking library from a fiber:
//! it would send the outcome over a channel to one writer thread (as
//! bench's `threads` reference does), or hand a rare call to
//! [`Scheduler::spawn_blocking`].
//!
//! Not here: the fiber-aware socket (`stream.rs`), the reactor
//! (`reactor.rs`, `io.rs`), other threads (`remote.rs`), the locks
//! (`notification.rs` onwards).

use std::cell::{Cell, RefCell, RefMut};
use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::time::{Duration, Instant};

use testbed::long_poll::LongPolls;
use testbed::turns::TurnLog;

use crate::heap::TimerHeap;
use crate::reactor::Reactor;
use crate::stacks::{DEFAULT_STACK_SIZE, StackPool};

mod deadlock;
mod inbox;
mod summary;
// The crate denies `unsafe_code`; this module is the one exception: the
// switch out of a fiber dereferences a raw pointer to its yielder.
#[allow(unsafe_code)]
mod switch;
mod table;
mod wait;

pub use deadlock::Deadlock;
pub(crate) use inbox::InboxSender;
pub use summary::{FiberPanic, LongResume, RunError, Stats, Summary};
pub use table::FiberId;
pub use wait::{WakeTicket, Woken};

use inbox::Inbox;
use switch::{Fiber, RunningGuard, YielderSlot};
use table::FiberTable;
use wait::{Resume, Wait};

/// How many fibers one turn of the loop may resume before it polls again.
/// Fibers made ready during a turn (unblocked, spawned, yielding) run in
/// the same turn, which saves a trip through `poll` each, but fibers that
/// keep waking each other must not keep the loop from the sockets forever.
/// Large enough that a burst of replies on hundreds of connections is
/// served in one turn; small enough that a turn stays in the milliseconds.
const TURN_BUDGET: usize = 1024;

/// A handle to a fiber scheduler. Cloning it is cheap and gives another
/// handle to the same scheduler; fibers take one to spawn, sleep, wait.
///
/// A scheduler belongs to the thread that made it (it is not `Send`);
/// other threads reach it through a [`crate::Remote`].
#[derive(Clone)]
pub struct Scheduler {
    inner: Rc<Inner>,
}

struct Inner {
    state: RefCell<State>,
    /// Where the loop sleeps, and what it knows about each socket.
    reactor: RefCell<Reactor<WakeTicket>>,
    /// The fiber running right now, if any.
    current: Cell<Option<FiberId>>,
    /// The running fiber's yielder: see `switch.rs`.
    yielder: YielderSlot,
    /// Set while stuck fibers are being unwound after a deadlock.
    tearing_down: Cell<bool>,
    /// Unblocks from other threads.
    inbox: Inbox,
}

/// Everything the loop and the fibers change, behind one `RefCell`: no
/// borrow of it is ever held across a switch.
struct State {
    fibers: FiberTable<FiberState>,
    ready: VecDeque<FiberId>,
    timers: TimerHeap<WakeTicket>,
    /// Fibers waiting on I/O: a peer can still wake them.
    io_waiters: usize,
    stacks: StackPool,
    stats: Stats,
    panics: Vec<FiberPanic>,
    /// Each wake-up of the loop, for the timeline page.
    turns: TurnLog,
    /// The watch for resumes that hold the thread, and the worst so far.
    long: LongPolls,
    long_resume: Option<LongResume>,
    /// When the scheduler was made: the origin of a long resume's time.
    created: Instant,
}

/// What the scheduler knows about one live fiber.
struct FiberState {
    /// `None` while the fiber runs: its coroutine is out, being resumed.
    coroutine: Option<Fiber>,
    /// The number of the fiber's current (or next) wait, for tickets.
    wait_no: u64,
    /// The wait in progress, if the fiber is waiting.
    wait: Option<Wait>,
    /// What to tell the fiber when it is next resumed.
    resume: Resume,
}

impl Scheduler {
    /// A scheduler whose fibers get stacks of [`DEFAULT_STACK_SIZE`].
    ///
    /// # Errors
    ///
    /// Creating the `epoll` instance or its waker failed.
    pub fn new() -> io::Result<Scheduler> {
        Scheduler::with_stack_size(DEFAULT_STACK_SIZE)
    }

    /// A scheduler whose fibers get stacks of `stack_size` bytes.
    ///
    /// # Errors
    ///
    /// Creating the `epoll` instance or its waker failed.
    pub fn with_stack_size(stack_size: usize) -> io::Result<Scheduler> {
        let (reactor, waker) = Reactor::new()?;
        let stacks = StackPool::new(stack_size);
        Ok(Scheduler {
            inner: Rc::new(Inner {
                state: RefCell::new(State {
                    fibers: FiberTable::new(),
                    ready: VecDeque::new(),
                    timers: TimerHeap::new(),
                    io_waiters: 0,
                    stats: Stats {
                        stack_size: stacks.stack_size(),
                        ..Stats::default()
                    },
                    stacks,
                    panics: Vec::new(),
                    turns: TurnLog::new(),
                    long: LongPolls::new(),
                    long_resume: None,
                    created: Instant::now(),
                }),
                reactor: RefCell::new(reactor),
                current: Cell::new(None),
                yielder: YielderSlot::new(),
                tearing_down: Cell::new(false),
                inbox: Inbox::new(waker),
            }),
        })
    }

    // ANCHOR: start
    /// Starts `f` as a new fiber, and calls `finish` with its value, or its
    /// panic, as the fiber's last act. The fiber does not run yet: it joins
    /// the back of the ready queue, and the caller goes on.
    ///
    /// A panic in `f` is caught at the fiber's edge: the fiber ends, the
    /// panic is listed in [`Summary::panics`], and every other fiber goes
    /// on. [`Scheduler::spawn`] is this with a [`crate::JoinHandle`].
    pub(crate) fn start<T: 'static>(
        &self,
        f: impl FnOnce() -> T + 'static,
        finish: impl FnOnce(Result<T, FiberPanic>) + 'static,
    ) -> io::Result<FiberId> {
        let inner = self.inner.clone();
        let body = move || {
            let result = match panic::catch_unwind(AssertUnwindSafe(f)) {
                Ok(value) => Ok(value),
                // Being unwound after a deadlock: let it go on up to
                // corosensei, which started it.
                Err(payload) if inner.tearing_down.get() => panic::resume_unwind(payload),
                Err(payload) => Err(inner.record_panic(payload.as_ref())),
            };
            finish(result);
        };
        let mut state = self.inner.state.borrow_mut();
        let stack = state.stacks.get()?;
        let id = state.fibers.insert(FiberState {
            coroutine: Some(switch::fiber(stack, &self.inner, body)),
            wait_no: 0,
            wait: None,
            resume: Resume::Ready,
        });
        state.stats.spawned += 1;
        state.stats.peak_live = state.stats.peak_live.max(state.fibers.len());
        state.ready.push_back(id);
        Ok(id)
    }
    // ANCHOR_END: start

    /// Runs fibers until none is left (the source article's `close`).
    ///
    /// # Errors
    ///
    /// - [`RunError::Deadlock`] when fibers are blocked and nothing can wake
    ///   them; they are unwound first, so their destructors have run.
    /// - [`RunError::Io`] when `poll` fails.
    /// - [`RunError::Nested`] when called while a scheduler runs on this
    ///   thread, for instance from inside a fiber.
    ///
    /// # Examples
    ///
    /// Two fibers; the first sleeps, so the second finishes first:
    ///
    /// ```
    /// use std::cell::RefCell;
    /// use std::rc::Rc;
    /// use std::time::Duration;
    ///
    /// use scheduler::Scheduler;
    ///
    /// let sched = Scheduler::new()?;
    /// let order = Rc::new(RefCell::new(Vec::new()));
    /// for (name, nap) in [("slow", 20), ("quick", 0)] {
    ///     let (sched2, order) = (sched.clone(), order.clone());
    ///     sched.spawn(move || {
    ///         sched2.sleep(Duration::from_millis(nap));
    ///         order.borrow_mut().push(name);
    ///     })?;
    /// }
    /// let summary = sched.run()?;
    /// assert_eq!(*order.borrow(), ["quick", "slow"]);
    /// assert_eq!(summary.stats.spawned, 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    // ANCHOR: run
    pub fn run(&self) -> Result<Summary, RunError> {
        let _running = RunningGuard::enter()?;
        loop {
            self.take_remote_unblocks();
            self.run_ready_fibers();
            let timeout = {
                let state = self.inner.state.borrow();
                if state.fibers.len() == 0 {
                    break;
                }
                if !state.ready.is_empty() {
                    Some(Duration::ZERO)
                } else if let Some(deadline) = state.timers.peek_deadline() {
                    Some(deadline.saturating_duration_since(Instant::now()))
                } else if self.nothing_can_wake(&state) {
                    let deadlock = state.deadlock();
                    drop(state);
                    self.tear_down();
                    return Err(RunError::Deadlock(deadlock));
                } else {
                    None
                }
            };
            self.poll(timeout)?;
            self.fire_timers();
        }
        let state = self.inner.state.borrow();
        Ok(Summary {
            stats: state.stats(),
            panics: state.panics.clone(),
            turns: state.turns.clone(),
            long_resume: state.long_resume,
        })
    }
    // ANCHOR_END: run

    /// The fiber running now; `None` outside fibers.
    pub fn current(&self) -> Option<FiberId> {
        self.inner.current.get()
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        self.inner.state.borrow().stats()
    }

    /// The reactor, for the modules that register sockets and wait on them
    /// (`io.rs`). Never borrowed across a switch.
    pub(crate) fn reactor(&self) -> RefMut<'_, Reactor<WakeTicket>> {
        self.inner.reactor.borrow_mut()
    }

    /// A sending end of the inbox, for another thread (`remote.rs`).
    pub(crate) fn inbox_sender(&self) -> InboxSender {
        self.inner.inbox.sender()
    }

    /// The running fiber, or a panic naming the operation that needs one.
    fn expect_fiber(&self, what: &str) -> FiberId {
        match self.inner.current.get() {
            Some(id) => id,
            None => panic!("Scheduler::{what} can only be called from a fiber"),
        }
    }

    /// Makes ready the fibers that other threads unblocked.
    fn take_remote_unblocks(&self) {
        let mut state = self.inner.state.borrow_mut();
        for ticket in self.inner.inbox.take() {
            state.wake(ticket, Resume::Unblocked);
        }
    }

    /// Runs ready fibers in queue order until none is left, or for at most
    /// [`TURN_BUDGET`] switches.
    fn run_ready_fibers(&self) {
        self.inner.state.borrow_mut().long.turn();
        let mut ran = 0;
        for _ in 0..TURN_BUDGET {
            let next = self.inner.state.borrow_mut().ready.pop_front();
            match next {
                Some(id) => {
                    let start = Instant::now();
                    self.resume(id);
                    self.note_resume(id, start, Instant::now());
                }
                None => break,
            }
            ran += 1;
        }
        self.inner.state.borrow_mut().turns.ran(ran);
    }

    /// Fiber `id` ran from `start` to `end`: a long resume, if it held the
    /// thread for the threshold or more (`testbed::long_poll`).
    fn note_resume(&self, id: FiberId, start: Instant, end: Instant) {
        let mut state = self.inner.state.borrow_mut();
        let took = end.saturating_duration_since(start);
        if took < state.long.threshold() || !state.long.held(start, end) {
            return;
        }
        let at = start.saturating_duration_since(state.created);
        let count = state.long_resume.map_or(0, |long| long.count) + 1;
        let worst = state.long_resume.filter(|long| long.took >= took);
        state.long_resume = Some(LongResume {
            count,
            ..worst.unwrap_or(LongResume {
                fiber: id,
                took,
                at,
                count,
            })
        });
    }

    /// Sleeps in the reactor for at most `timeout` (`None`: until an
    /// event), then makes ready the fibers whose sockets are.
    fn poll(&self, timeout: Option<Duration>) -> io::Result<()> {
        let mut state = self.inner.state.borrow_mut();
        state.stats.polls += 1;
        state.turns.sleeping();
        // No fiber runs during the sleep, so holding the state is free.
        // A waiter whose wait is already over (it timed out) is refused by
        // `wake`, and the reactor keeps the edge for the next waiter.
        let mut ready = 0;
        let polled = self.inner.reactor.borrow_mut().poll(timeout, |ticket| {
            ready += 1;
            state.wake(ticket, Resume::Io)
        });
        state.turns.woke(ready);
        polled
    }

    /// Wakes the fibers whose timers are due.
    fn fire_timers(&self) {
        let now = Instant::now();
        let mut state = self.inner.state.borrow_mut();
        let mut fired = 0;
        while let Some(ticket) = state.timers.pop_due(now) {
            state.stats.timers_fired += 1;
            fired += 1;
            state.wake(ticket, Resume::TimedOut);
        }
        state.turns.timers(fired);
    }
}

impl fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.state.borrow();
        f.debug_struct("Scheduler")
            .field("live", &state.fibers.len())
            .field("ready", &state.ready.len())
            .field("timers", &state.timers.len())
            .finish_non_exhaustive()
    }
}
