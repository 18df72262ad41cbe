//! The scheduler: fibers, the ready queue, timers, and the loop that runs
//! them until nothing is left.
//!
//! This is the Ruby article's `FiberScheduler` in Rust. A fiber is a
//! function with its own stack (corosensei switches between stacks); it
//! runs until it would wait, and then, instead of blocking the thread, it
//! records *what* it waits for and switches back to the scheduler, which
//! runs another fiber. When the thing arrives (a reply, a deadline, an
//! `unblock`), the fiber goes back on the ready queue, and later continues
//! exactly where it stopped, as if its call had simply taken a while.
//!
//! # The loop
//!
//! [`Scheduler::run`] is the seed's `close`: it loops until no fiber is
//! left. One turn of the loop:
//!
//! 1. take the unblocks sent from other threads ([`crate::Remote`]);
//! 2. run the ready fibers, in order, until none is ready (a fiber woken
//!    or spawned by another runs in the same turn), but for no more than
//!    `TURN_BUDGET` switches, so fibers that keep waking each other cannot
//!    starve the sockets;
//! 3. work out how long it may sleep: not at all if a fiber is ready,
//!    until the earliest timer if there is one, else until an event;
//! 4. sleep in `poll` (the reactor, [`crate::io`]), and make the fibers
//!    whose sockets are ready, ready;
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
//! # Waits and tickets
//!
//! A fiber waits in one of three ways: on a socket ([`Scheduler::io_wait`]),
//! on a timer ([`Scheduler::sleep`]), or on someone else
//! ([`Scheduler::block`], until [`Scheduler::unblock`]). Each wait of each
//! fiber has a [`Ticket`]. Whoever will end the wait (a lock's queue, a
//! timer, a socket, another thread) holds the ticket, and a ticket wakes
//! only the wait it was taken for: a timer that fires after the reply came,
//! or an `unblock` that arrives after a timeout, finds its wait over and
//! does nothing. That is what makes the primitives built on `block` (see
//! `semaphore.rs`) simple: a woken fiber never has to ask "was that for me?".
//!
//! Not here: the fiber-aware socket (`stream.rs`), the reactor (`io.rs`),
//! other threads (`remote.rs`), the locks (`notification.rs` onwards).

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use crossbeam_channel::{Receiver, Sender};
use mio::{Events, Poll, Registry, Token, Waker};

use crate::heap::{TimerHeap, TimerId};
use crate::io::{Interest, Source};
use crate::join::{FiberError, JoinHandle, JoinShared};
use crate::remote::RemoteShared;
use crate::stacks::{DEFAULT_STACK_SIZE, StackPool};

/// The token of the [`Waker`] that other threads use to interrupt `poll`.
/// Sockets get tokens from 0 up (their index in the source table), so the
/// largest value can never collide with one.
pub(crate) const WAKER_TOKEN: Token = Token(usize::MAX);

/// How many fibers one turn of the loop may resume before it polls again.
/// Fibers made ready during a turn (unblocked, spawned, yielding) run in
/// the same turn, which saves a trip through `poll` each, but fibers that
/// keep waking each other must not keep the loop from the sockets forever.
/// Large enough that a burst of replies on hundreds of connections is
/// served in one turn; small enough that a turn stays in the milliseconds.
const TURN_BUDGET: usize = 1024;

/// How many readiness events one `poll` can return. More ready sockets than
/// this are not lost: the next `poll` returns the rest.
const EVENTS_CAPACITY: usize = 1024;

/// Names one fiber of one scheduler. Ids are reused once a fiber has
/// finished, with a new generation, so an old id never names a new fiber.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FiberId {
    index: u32,
    generation: u32,
}

impl fmt::Display for FiberId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fiber {}.{}", self.index, self.generation)
    }
}

/// One wait of one fiber: what [`Scheduler::unblock`] (or
/// [`crate::Remote::unblock`], from another thread) needs to end it.
///
/// Take it with [`Scheduler::ticket`] right before [`Scheduler::block`],
/// give it to whoever will wake you, then block. A ticket whose wait is
/// over wakes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ticket {
    fiber: FiberId,
    wait: u64,
}

impl Ticket {
    /// The fiber that waits.
    pub fn fiber(&self) -> FiberId {
        self.fiber
    }
}

/// How a [`Scheduler::block`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// Someone called `unblock` with the ticket.
    Unblocked,
    /// The timeout passed first.
    TimedOut,
}

/// Why a fiber is resumed: the value its switch back to the scheduler
/// returns. (corosensei's `Input` type.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resume {
    /// First run, or after [`Scheduler::yield_now`].
    Ready,
    /// The socket it waited on may be ready.
    Io,
    /// Its timer fired first.
    TimedOut,
    /// [`Scheduler::unblock`] ended its wait.
    Unblocked,
}

/// What a waiting fiber waits for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WaitOn {
    Io { source: usize, interest: Interest },
    Sleep,
    Block(&'static str),
}

/// The record of a wait in progress.
#[derive(Debug)]
struct Wait {
    on: WaitOn,
    timer: Option<TimerId>,
}

/// A fiber's coroutine: resumed with a [`Resume`], yields nothing (the
/// reason it stopped is in its [`Wait`] record), returns nothing (its
/// result went to its [`JoinHandle`]).
type Fiber = Coroutine<Resume, (), (), DefaultStack>;

/// What the scheduler knows about one live fiber.
struct FiberState {
    /// `None` while the fiber runs: its coroutine is out, being resumed.
    coroutine: Option<Fiber>,
    /// The number of the fiber's current (or next) wait, for tickets.
    wait_no: u64,
    wait: Option<Wait>,
    /// What to tell the fiber when it is next resumed.
    resume: Resume,
}

/// A slot of the fiber table.
#[derive(Default)]
struct Slot {
    generation: u32,
    fiber: Option<FiberState>,
}

/// Counters of a run, for the report and the curious.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Fibers spawned.
    pub spawned: u64,
    /// The most fibers alive at once.
    pub peak_live: usize,
    /// Switches into a fiber (each resume).
    pub switches: u64,
    /// Calls to `poll`, the only place the thread sleeps.
    pub polls: u64,
    /// Timers that fired (sleeps ending, timeouts).
    pub timers_fired: u64,
    /// Fiber stacks created; the other fibers reused one.
    pub stacks_created: usize,
    /// The size of each fiber stack, in bytes.
    pub stack_size: usize,
}

/// A fiber that panicked: the panic was caught at the fiber's edge and the
/// other fibers went on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FiberPanic {
    /// Which fiber.
    pub fiber: FiberId,
    /// The panic's message.
    pub message: String,
}

/// What [`Scheduler::run`] reports when every fiber has finished.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// The run's counters.
    pub stats: Stats,
    /// Every fiber that panicked, in order.
    pub panics: Vec<FiberPanic>,
}

/// Fibers that can never be woken: what a deadlock looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deadlock {
    /// Each stuck fiber and what it waits on (the `blocker` it passed to
    /// [`Scheduler::block`]).
    pub stuck: Vec<(FiberId, &'static str)>,
}

impl fmt::Display for Deadlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut by_blocker: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, blocker) in &self.stuck {
            *by_blocker.entry(blocker).or_default() += 1;
        }
        let on: Vec<String> = by_blocker
            .iter()
            .map(|(blocker, n)| format!("{n} on {blocker}"))
            .collect();
        write!(
            f,
            "deadlock: {} fiber{} blocked with nothing left to wake them ({})",
            self.stuck.len(),
            if self.stuck.len() == 1 { "" } else { "s" },
            on.join(", ")
        )
    }
}

/// Why [`Scheduler::run`] stopped before every fiber finished.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Fibers are blocked and nothing can wake them. They have been
    /// unwound (their destructors ran) so the scheduler is empty again.
    #[error("{0}")]
    Deadlock(Deadlock),
    /// `poll` failed.
    #[error("poll failed: {0}")]
    Io(#[from] io::Error),
    /// `run` was called while a scheduler was already running on this
    /// thread (from inside a fiber, typically).
    #[error("a scheduler is already running on this thread: fibers cannot run a scheduler")]
    Nested,
}

/// A handle to a fiber scheduler. Cloning it is cheap and gives another
/// handle to the same scheduler; fibers take one to spawn, sleep, wait.
///
/// A scheduler belongs to the thread that made it (it is not `Send`);
/// other threads reach it through a [`crate::Remote`].
#[derive(Clone)]
pub struct Scheduler {
    pub(crate) inner: Rc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) state: RefCell<State>,
    poll: RefCell<Poll>,
    events: RefCell<Events>,
    /// A second handle to `poll`'s registry, so fibers can register sockets
    /// without touching `poll` itself.
    pub(crate) registry: Registry,
    /// The fiber running right now, if any.
    current: Cell<Option<FiberId>>,
    /// The running fiber's yielder: see "# Implementation" in the crate docs.
    yielder: Cell<Option<*const Yielder<Resume, ()>>>,
    /// Set while stuck fibers are being unwound after a deadlock.
    tearing_down: Cell<bool>,
    pub(crate) remote_tx: Sender<Ticket>,
    remote_rx: Receiver<Ticket>,
    pub(crate) remote: Arc<RemoteShared>,
}

pub(crate) struct State {
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    live: usize,
    ready: VecDeque<FiberId>,
    timers: TimerHeap<Ticket>,
    pub(crate) sources: Vec<Option<Source>>,
    pub(crate) free_sources: Vec<usize>,
    /// Fibers waiting in `io_wait`: a peer can still wake them.
    io_waiters: usize,
    stacks: StackPool,
    stats: Stats,
    panics: Vec<FiberPanic>,
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
        let poll = Poll::new()?;
        let registry = poll.registry().try_clone()?;
        let waker = Waker::new(poll.registry(), WAKER_TOKEN)?;
        let (remote_tx, remote_rx) = crossbeam_channel::unbounded();
        let stacks = StackPool::new(stack_size);
        Ok(Scheduler {
            inner: Rc::new(Inner {
                state: RefCell::new(State {
                    slots: Vec::new(),
                    free_slots: Vec::new(),
                    live: 0,
                    ready: VecDeque::new(),
                    timers: TimerHeap::new(),
                    sources: Vec::new(),
                    free_sources: Vec::new(),
                    io_waiters: 0,
                    stats: Stats {
                        stack_size: stacks.stack_size(),
                        ..Stats::default()
                    },
                    stacks,
                    panics: Vec::new(),
                }),
                poll: RefCell::new(poll),
                events: RefCell::new(Events::with_capacity(EVENTS_CAPACITY)),
                registry,
                current: Cell::new(None),
                yielder: Cell::new(None),
                tearing_down: Cell::new(false),
                remote_tx,
                remote_rx,
                remote: Arc::new(RemoteShared::new(waker)),
            }),
        })
    }

    // ANCHOR: spawn
    /// Starts `f` as a new fiber (Ruby's `Fiber.schedule`). It does not run
    /// yet: it joins the back of the ready queue, and the caller goes on.
    ///
    /// A panic in `f` is caught at the fiber's edge: the fiber ends, its
    /// [`JoinHandle`] returns [`FiberError::Panicked`], the panic is listed
    /// in [`Summary::panics`], and every other fiber goes on.
    ///
    /// # Errors
    ///
    /// No stack could be made for the fiber (see [`crate::stacks`]).
    pub fn spawn<T: 'static>(&self, f: impl FnOnce() -> T + 'static) -> io::Result<JoinHandle<T>> {
        let join = Rc::new(JoinShared::new(self));
        let body = {
            let join = join.clone();
            let inner = self.inner.clone();
            move |yielder: &Yielder<Resume, ()>, _first: Resume| {
                // From here until this fiber's next switch, `suspend` may
                // use this yielder (see "# Implementation" in lib.rs).
                inner.yielder.set(Some(std::ptr::from_ref(yielder)));
                let outcome = panic::catch_unwind(AssertUnwindSafe(f));
                let result = match outcome {
                    Ok(value) => Ok(value),
                    // Being unwound after a deadlock: let it go on up to
                    // corosensei, which started it.
                    Err(payload) if inner.tearing_down.get() => panic::resume_unwind(payload),
                    Err(payload) => Err(inner.record_panic(payload.as_ref())),
                };
                join.finish(result);
            }
        };
        let mut state = self.inner.state.borrow_mut();
        let stack = state.stacks.get()?;
        let fiber = Coroutine::with_stack(stack, body);
        let id = state.insert(fiber);
        state.ready.push_back(id);
        Ok(JoinHandle::new(id, join))
    }
    // ANCHOR_END: spawn

    // ANCHOR: run
    /// Runs fibers until none is left (the seed's `close`).
    ///
    /// # Errors
    ///
    /// - [`RunError::Deadlock`] when fibers are blocked and nothing can wake
    ///   them; they are unwound first, so their destructors have run.
    /// - [`RunError::Io`] when `poll` fails.
    /// - [`RunError::Nested`] when called while a scheduler runs on this
    ///   thread, for instance from inside a fiber.
    pub fn run(&self) -> Result<Summary, RunError> {
        let _running = RunningGuard::enter()?;
        loop {
            self.take_remote_unblocks();
            self.run_ready_fibers();
            let timeout = {
                let state = self.inner.state.borrow();
                if state.live == 0 {
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

    /// Goes to the back of the ready queue, letting every other ready fiber
    /// run first (the seed's `yield`). The loop polls for I/O at least
    /// every `TURN_BUDGET` switches, so a fiber that computes for a long
    /// time and yields now and then does not starve the sockets.
    ///
    /// # Panics
    ///
    /// Outside a fiber.
    pub fn yield_now(&self) {
        let id = self.expect_fiber("yield_now");
        {
            let mut state = self.inner.state.borrow_mut();
            state.fiber_mut(id).resume = Resume::Ready;
            state.ready.push_back(id);
        }
        self.suspend();
    }

    /// Suspends this fiber for `duration` (the seed's `kernel_sleep`); the
    /// others run meanwhile.
    ///
    /// # Panics
    ///
    /// Outside a fiber.
    pub fn sleep(&self, duration: Duration) {
        self.expect_fiber("sleep");
        self.wait(WaitOn::Sleep, Some(duration));
    }

    /// The ticket of this fiber's next wait: hand it to whoever will
    /// [`unblock`](Self::unblock) you, then [`block`](Self::block) with it.
    ///
    /// # Panics
    ///
    /// Outside a fiber.
    pub fn ticket(&self) -> Ticket {
        let id = self.expect_fiber("ticket");
        self.inner.state.borrow_mut().next_ticket(id)
    }

    // ANCHOR: block
    /// Suspends this fiber until [`unblock`](Self::unblock) is called with
    /// `ticket`, or `timeout` passes (the seed's `block`). `blocker` says
    /// what the fiber waits on, for deadlock reports ("mutex").
    ///
    /// # Panics
    ///
    /// Outside a fiber, or if `ticket` is not this fiber's current one (it
    /// was taken by another fiber, or before another wait).
    pub fn block(&self, ticket: Ticket, blocker: &'static str, timeout: Option<Duration>) -> Woken {
        assert_eq!(
            ticket,
            self.ticket(),
            "block: a ticket is for the fiber that took it, and its next wait only"
        );
        match self.wait(WaitOn::Block(blocker), timeout) {
            Resume::TimedOut => Woken::TimedOut,
            _ => Woken::Unblocked,
        }
    }

    /// Ends the wait `ticket` names, making its fiber ready (the seed's
    /// `unblock`). Returns false if that wait is already over (it timed
    /// out, was unblocked before, or its fiber is gone).
    ///
    /// Call it from this scheduler's thread (any fiber, or outside fibers);
    /// other threads use [`crate::Remote::unblock`].
    pub fn unblock(&self, ticket: Ticket) -> bool {
        self.inner
            .state
            .borrow_mut()
            .wake(ticket, Resume::Unblocked)
    }
    // ANCHOR_END: block

    /// Records that the running fiber waits on `on` (and a timer, if any),
    /// then switches away until the wait ends. Returns how it ended.
    pub(crate) fn wait(&self, on: WaitOn, timeout: Option<Duration>) -> Resume {
        {
            let mut state = self.inner.state.borrow_mut();
            let id = self.expect_fiber("wait");
            let ticket = state.next_ticket(id);
            let timer = timeout.map(|d| state.timers.insert(Instant::now() + d, ticket));
            if matches!(on, WaitOn::Io { .. }) {
                state.io_waiters += 1;
            }
            state.fiber_mut(id).wait = Some(Wait { on, timer });
        }
        self.suspend()
    }

    // ANCHOR: suspend
    /// Switches from the running fiber back to the scheduler's loop, and
    /// returns when the loop resumes this fiber, with the reason.
    #[allow(unsafe_code)]
    fn suspend(&self) -> Resume {
        let yielder = self
            .inner
            .yielder
            .take()
            .expect("suspend is only reached from a running fiber");
        // SAFETY: `yielder` was stored by this very fiber, from the
        // `&Yielder` corosensei passed to its body (see `spawn`), and it is
        // only ever stored while that fiber runs: the loop clears it after
        // every resume, and the fiber stores it again when its switch
        // returns (just below). So the fiber running now is the one that
        // stored it, and its body, which borrows the yielder, has not
        // returned: the yielder lives on that fiber's stack, which is not
        // freed before the coroutine finishes. No other scheduler's fiber
        // can be running above it: `run` refuses to nest (`RunningGuard`).
        let why = unsafe { &*yielder }.suspend(());
        self.inner.yielder.set(Some(yielder));
        why
    }
    // ANCHOR_END: suspend

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
        for ticket in self.inner.remote_rx.try_iter() {
            state.wake(ticket, Resume::Unblocked);
        }
    }

    /// Runs ready fibers in queue order until none is left, or for at most
    /// [`TURN_BUDGET`] switches.
    fn run_ready_fibers(&self) {
        for _ in 0..TURN_BUDGET {
            let next = self.inner.state.borrow_mut().ready.pop_front();
            match next {
                Some(id) => self.resume(id),
                None => break,
            }
        }
    }

    // ANCHOR: resume
    /// Switches into fiber `id` until it waits again or finishes.
    fn resume(&self, id: FiberId) {
        let (mut fiber, why) = {
            let mut state = self.inner.state.borrow_mut();
            let Some(fiber) = state.get_mut(id) else {
                return;
            };
            let coroutine = fiber.coroutine.take().expect("a ready fiber is suspended");
            let why = fiber.resume;
            state.stats.switches += 1;
            (coroutine, why)
        };
        // No borrow of the state is held here: the fiber uses it.
        self.inner.current.set(Some(id));
        let result = fiber.resume(why);
        self.inner.current.set(None);
        self.inner.yielder.set(None);
        let mut state = self.inner.state.borrow_mut();
        match result {
            CoroutineResult::Yield(()) => state.fiber_mut(id).coroutine = Some(fiber),
            CoroutineResult::Return(()) => {
                state.remove(id);
                state.stacks.put(fiber.into_stack());
            }
        }
    }
    // ANCHOR_END: resume

    /// Sleeps in `poll` for at most `timeout` (`None`: until an event), then
    /// makes ready the fibers whose sockets are.
    fn poll(&self, timeout: Option<Duration>) -> io::Result<()> {
        let mut poll = self.inner.poll.borrow_mut();
        let mut events = self.inner.events.borrow_mut();
        self.inner.state.borrow_mut().stats.polls += 1;
        match poll.poll(&mut events, timeout) {
            Ok(()) => {}
            // A signal interrupted the sleep: nothing happened, and the
            // loop will work the timeout out again.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(()),
            Err(e) => return Err(e),
        }
        let mut state = self.inner.state.borrow_mut();
        for event in events.iter() {
            // The waker's event only interrupts the sleep: the loop then
            // takes the remote unblocks from their channel.
            if event.token() != WAKER_TOKEN {
                state.dispatch(event);
            }
        }
        Ok(())
    }

    /// Wakes the fibers whose timers are due.
    fn fire_timers(&self) {
        let now = Instant::now();
        let mut state = self.inner.state.borrow_mut();
        while let Some(ticket) = state.timers.pop_due(now) {
            state.stats.timers_fired += 1;
            state.wake(ticket, Resume::TimedOut);
        }
    }

    // ANCHOR: nothing_can_wake
    /// True when no fiber is ready and nothing could ever make one ready:
    /// no timer, no fiber waiting on a socket, no [`crate::Remote`] alive
    /// that another thread could unblock with, and no unblock in flight.
    fn nothing_can_wake(&self, state: &State) -> bool {
        state.ready.is_empty()
            && state.timers.is_empty()
            && state.io_waiters == 0
            // Read the count before the channel: a thread sends its unblock
            // before it drops its handle.
            && self.inner.remote.live.load(Ordering::Acquire) == 0
            && self.inner.remote_rx.is_empty()
    }
    // ANCHOR_END: nothing_can_wake

    /// Unwinds every fiber left (after a deadlock), so their destructors
    /// run, their stacks are freed, and the handles they hold to this
    /// scheduler are dropped.
    fn tear_down(&self) {
        self.inner.tearing_down.set(true);
        let fibers: Vec<Fiber> = {
            let mut state = self.inner.state.borrow_mut();
            // End every wait first, so that no ticket wakes anything: a
            // lock released by an unwinding fiber must go back to its
            // count, not be handed to another fiber that is going too.
            for fiber in state.slots.iter_mut().filter_map(|s| s.fiber.as_mut()) {
                fiber.wait = None;
                fiber.wait_no += 1;
            }
            state.ready.clear();
            state.timers = TimerHeap::new();
            state.io_waiters = 0;
            state
                .slots
                .iter_mut()
                .filter_map(|slot| slot.fiber.as_mut()?.coroutine.take())
                .collect()
        };
        // Dropping a suspended coroutine unwinds its stack. Destructors run
        // there (a lock guard releases its lock, a socket deregisters) and
        // may call back into the scheduler, so no borrow is held.
        drop(fibers);
        let mut state = self.inner.state.borrow_mut();
        // Retire the slots with a new generation, so that no old id or
        // ticket can name the fibers that will reuse them.
        for index in 0..state.slots.len() {
            let slot = &state.slots[index];
            if slot.fiber.is_some() {
                let id = FiberId {
                    index: index as u32,
                    generation: slot.generation,
                };
                state.remove(id);
            }
        }
        state.ready.clear();
        drop(state);
        self.inner.tearing_down.set(false);
    }
}

impl fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.state.borrow();
        f.debug_struct("Scheduler")
            .field("live", &state.live)
            .field("ready", &state.ready.len())
            .field("timers", &state.timers.len())
            .finish_non_exhaustive()
    }
}

impl Inner {
    /// Records a fiber's panic and returns it as that fiber's error.
    fn record_panic(&self, payload: &(dyn std::any::Any + Send)) -> FiberError {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with a non-string payload".to_owned());
        let fiber = self
            .current
            .get()
            .expect("a fiber body runs as the current fiber");
        self.state.borrow_mut().panics.push(FiberPanic {
            fiber,
            message: message.clone(),
        });
        FiberError::Panicked { fiber, message }
    }
}

impl State {
    /// Adds a new fiber to the table.
    fn insert(&mut self, coroutine: Fiber) -> FiberId {
        let fiber = FiberState {
            coroutine: Some(coroutine),
            wait_no: 0,
            wait: None,
            resume: Resume::Ready,
        };
        let index = match self.free_slots.pop() {
            Some(index) => index,
            None => {
                self.slots.push(Slot::default());
                u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 fibers at once")
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.fiber = Some(fiber);
        self.live += 1;
        self.stats.spawned += 1;
        self.stats.peak_live = self.stats.peak_live.max(self.live);
        FiberId {
            index,
            generation: slot.generation,
        }
    }

    /// Removes a finished fiber; its id will not name anything again.
    fn remove(&mut self, id: FiberId) {
        let slot = &mut self.slots[id.index as usize];
        slot.fiber = None;
        slot.generation = slot.generation.wrapping_add(1);
        self.free_slots.push(id.index);
        self.live -= 1;
    }

    fn get_mut(&mut self, id: FiberId) -> Option<&mut FiberState> {
        let slot = self.slots.get_mut(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        slot.fiber.as_mut()
    }

    /// The ticket of fiber `id`'s next wait.
    pub(crate) fn next_ticket(&mut self, id: FiberId) -> Ticket {
        Ticket {
            fiber: id,
            wait: self.fiber_mut(id).wait_no,
        }
    }

    /// A fiber known to be alive (the running one, say).
    fn fiber_mut(&mut self, id: FiberId) -> &mut FiberState {
        self.get_mut(id).expect("the fiber is alive")
    }

    // ANCHOR: wake
    /// Ends the wait `ticket` names, if it is still in progress: cancels its
    /// timer, forgets it on its socket, and queues the fiber with `why`.
    pub(crate) fn wake(&mut self, ticket: Ticket, why: Resume) -> bool {
        let Some(fiber) = self.get_mut(ticket.fiber) else {
            return false;
        };
        if fiber.wait_no != ticket.wait {
            return false;
        }
        let Some(wait) = fiber.wait.take() else {
            return false;
        };
        fiber.wait_no += 1;
        fiber.resume = why;
        if let Some(timer) = wait.timer {
            // O(log n), thanks to the heap's index; a no-op if the timer is
            // what woke us (it is already out of the heap).
            self.timers.remove(timer);
        }
        if let WaitOn::Io { source, interest } = wait.on {
            self.io_waiters -= 1;
            if let Some(Some(source)) = self.sources.get_mut(source) {
                source.forget(interest, ticket);
            }
        }
        self.ready.push_back(ticket.fiber);
        true
    }
    // ANCHOR_END: wake

    /// What every blocked fiber waits on.
    fn deadlock(&self) -> Deadlock {
        let mut stuck = Vec::new();
        for (index, slot) in self.slots.iter().enumerate() {
            let Some(fiber) = &slot.fiber else { continue };
            let blocker = match fiber.wait.as_ref().map(|w| w.on) {
                Some(WaitOn::Block(blocker)) => blocker,
                _ => "nothing",
            };
            let id = FiberId {
                index: index as u32,
                generation: slot.generation,
            };
            stuck.push((id, blocker));
        }
        Deadlock { stuck }
    }

    fn stats(&self) -> Stats {
        Stats {
            stacks_created: self.stacks.created(),
            ..self.stats.clone()
        }
    }
}

thread_local! {
    /// Is a scheduler running on this thread? See `RunningGuard`.
    static RUNNING: Cell<bool> = const { Cell::new(false) };
}

/// Marks "a scheduler runs on this thread" for the duration of `run`.
///
/// Running a second scheduler from inside a fiber of the first would let a
/// fiber of the inner one switch out through a yielder of the outer one,
/// which corosensei cannot make sense of; refusing to nest is what makes the
/// `unsafe` in `suspend` sound. A thread-local is the only place that can
/// know about *every* scheduler of the thread.
struct RunningGuard;

impl RunningGuard {
    fn enter() -> Result<RunningGuard, RunError> {
        RUNNING.with(|running| {
            if running.replace(true) {
                Err(RunError::Nested)
            } else {
                Ok(RunningGuard)
            }
        })
    }
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        RUNNING.with(|running| running.set(false));
    }
}
