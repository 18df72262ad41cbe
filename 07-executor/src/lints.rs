//! Lints: what the executor saw go wrong in its own loop, named.
//!
//! A one-thread executor fails in a few ways that all look alike from the
//! outside (the run is slow, or it stops), and the loop is the one place
//! that can tell them apart, because it sees every poll. It watches for
//! them as it runs, always (each check costs a comparison or two per poll),
//! and [`Executor::lints`](crate::Executor::lints) names each one with the
//! task and the line that spawned it (`#[track_caller]` on `spawn`):
//!
//! - [`Lint::LongPoll`]: one poll held the thread for
//!   [`LONG_POLL`] or more. While a poll runs nothing else does: no socket
//!   is read, no timer fires, no other task moves. A `std::thread::sleep`,
//!   a blocking `read`, a long computation inside a future are this. The
//!   threshold is 10 ms because a normal poll does one step of a request
//!   (`07-executor --items 20000 --conns 100 --latency 0` makes 60,459
//!   polls in a run of 0.57 s, everything included: under 10 µs each),
//!   while 10 ms is already as long as a whole simulated reply. The worst
//!   poll is kept, with a count of all of them. A poll the kernel
//!   preempted is not one that held the thread: `testbed::long_poll` tells
//!   them apart, asking the kernel only once a poll has been long by the
//!   clock, so that a run whose polls are all short makes no system call
//!   for it.
//! - [`Lint::SelfWakes`]: a task woke itself during its poll and returned
//!   `Pending`, [`SELF_WAKES`] times in a row, with nothing else waking it
//!   in between: it spins, polled again and again, and the loop never
//!   sleeps. A busy-wait written as a future (checking a flag, waking
//!   itself, returning `Pending`) is this.
//! - [`Lint::NoWaker`]: the stuck check (`stuck.rs`) found a task pending
//!   with no waker held anywhere: its future returned `Pending` without
//!   handing `cx.waker()` to anything. The run ends with
//!   [`RunError::Stuck`](crate::RunError::Stuck); the lint says where the
//!   task was spawned.
//! - [`Lint::Futurelock`]: the run is stuck and a task waits for a
//!   semaphore permit that it holds itself, in a future it keeps but no
//!   longer polls (the loser of a select, a `timeout`'s inner future kept
//!   alive), or that a task holds which waits for it in turn.
//! - [`Lint::ManyTasks`]: the tasks alive at once peaked far above
//!   `--conns`: tasks are spawned faster than they finish. The stage
//!   takes a permit before each spawn and keeps at most `--conns` alive;
//!   the lint fires above [`many_tasks_limit`]: four times `--conns`, plus
//!   16 so that a small `--conns` with a few tasks of its own does not
//!   trip it.
//! - [`Lint::BorrowAcrossAwait`]: a task panicked with "already borrowed":
//!   a `RefCell` borrow was held across an `.await`, and another poll
//!   borrowed it meanwhile.
//!
//! A `std::sync::Mutex` held across an `.await` cannot be seen from here:
//! the next task to lock it blocks the only thread in `futex`, and the loop
//! never runs again. The stall watchdog (`testbed::watchdog`) says so.
//!
//! Not here: where the loop calls these (`executor.rs`, `handle.rs`,
//! `cancel.rs`), the permits' holders (`semaphore.rs`).

pub(crate) mod lines;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::panic::Location;
use std::time::{Duration, Instant};

use testbed::long_poll::LongPolls;

use crate::schedule::TaskId;

/// The default [`Lint::LongPoll`] threshold (see the module docs).
pub use testbed::long_poll::LONG_POLL;

/// How many self-wakes in a row make a [`Lint::SelfWakes`]. A task that
/// yields on purpose (`yield_now` between chunks of real work) wakes
/// itself too, but the stage's tasks never do, and a yield loop that goes
/// a thousand rounds without a single wake from a socket, a timer or
/// another task is doing nothing but compute on the loop's thread, and
/// the loop, always busy, never sleeps in `epoll_wait`. A spin reaches it
/// at once: the 5,000 self-wakes of the test `tests/it/lints.rs` take
/// well under the suite's 0.25 s.
pub const SELF_WAKES: u32 = 1_000;

/// How many of each kind of lint are kept (the count of long polls is
/// always complete): a bug that hits every task should not print 20,000
/// lines.
const KEPT: usize = 5;

/// Above how many tasks alive at once [`Lint::ManyTasks`] fires, for
/// `conns`: `4 × conns + 16` (see the module docs).
pub fn many_tasks_limit(conns: usize) -> usize {
    conns.saturating_mul(4).saturating_add(16)
}

/// A task, and the line that spawned it (`None` for the `block_on`
/// future).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spawned {
    /// The task.
    pub task: TaskId,
    /// Where `spawn` was called.
    pub at: Option<&'static Location<'static>>,
}

impl fmt::Display for Spawned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some(at) => write!(f, "{} (spawned at {}:{})", self.task, at.file(), at.line()),
            None => write!(f, "{}", self.task),
        }
    }
}

/// Something the executor saw go wrong (the module docs list them).
///
/// # Examples
///
/// A task that blocks the thread for 30 ms in one poll:
///
/// ```
/// use executor::{Executor, Lint};
///
/// let executor = Executor::new()?;
/// executor.block_on(executor.spawn(async {
///     std::thread::sleep(std::time::Duration::from_millis(30));
/// }))?;
/// let lints = executor.lints();
/// assert!(matches!(lints[..], [Lint::LongPoll { .. }]), "{lints:?}");
/// assert!(lints[0].to_string().contains("took"), "{}", lints[0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lint {
    /// The longest poll that held the thread for the threshold or more.
    LongPoll {
        /// The task polled.
        task: Spawned,
        /// How long the poll took.
        took: Duration,
        /// When it started, from the executor's creation.
        at: Duration,
        /// How many polls reached the threshold, this one included.
        count: u64,
    },
    /// A task that woke itself `streak` times in a row.
    SelfWakes {
        /// The task.
        task: Spawned,
        /// The longest run of self-wakes seen.
        streak: u32,
    },
    /// A stuck task that kept no waker.
    NoWaker {
        /// The task.
        task: Spawned,
    },
    /// A task waits for what it, or a task waiting for it, holds.
    Futurelock {
        /// The task that waits.
        waiter: Spawned,
        /// The task that holds what it waits for.
        holder: Spawned,
        /// What it waits for.
        primitive: &'static str,
    },
    /// Tasks alive at once peaked at `peak`, for `--conns` `conns`.
    ManyTasks {
        /// The most tasks alive at once.
        peak: usize,
        /// The run's `--conns`.
        conns: usize,
    },
    /// A task panicked because a `RefCell` was already borrowed.
    BorrowAcrossAwait {
        /// The task that panicked.
        task: Spawned,
        /// Its panic message.
        message: String,
    },
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lint::LongPoll {
                task,
                took,
                at,
                count,
            } => {
                write!(
                    f,
                    "one poll of {task} took {} ms at {:.2} s: every connection and timer \
                     waited behind it (a blocking call or a long computation in a future)",
                    took.as_millis(),
                    at.as_secs_f64()
                )?;
                if *count > 1 {
                    write!(
                        f,
                        "; {count} polls took {} ms or more",
                        LONG_POLL.as_millis()
                    )?;
                }
                Ok(())
            }
            Lint::SelfWakes { task, streak } => write!(
                f,
                "{task} woke itself {streak} times in a row and returned Pending each time, \
                 with nothing else waking it: it spins and the loop never sleeps (a busy-wait \
                 written as a future)"
            ),
            Lint::NoWaker { task } => write!(
                f,
                "{task} returned Pending and kept no waker, so nothing can ever wake it: a \
                 future must hand cx.waker() to what it waits for before it returns Pending"
            ),
            Lint::Futurelock {
                waiter,
                holder,
                primitive,
            } if waiter.task == holder.task => write!(
                f,
                "futurelock: {waiter} waits for {primitive} that it holds itself, in a future \
                 it keeps but no longer polls (the loser of a select or a timeout, kept alive): \
                 drop that future, or poll it to its end"
            ),
            Lint::Futurelock {
                waiter,
                holder,
                primitive,
            } => write!(
                f,
                "futurelock: {waiter} waits for {primitive} held by {holder}, which waits for \
                 {} in turn",
                waiter.task
            ),
            Lint::ManyTasks { peak, conns } => write!(
                f,
                "tasks alive at once peaked at {peak} for --conns {conns}: tasks are spawned \
                 faster than they finish (take the permit before spawning, not inside the task)"
            ),
            Lint::BorrowAcrossAwait { task, message } => write!(
                f,
                "{task} panicked with {message:?}: a RefCell borrow was held across an .await \
                 and another poll borrowed it meanwhile (end the borrow before awaiting)"
            ),
        }
    }
}

/// What the executor collects as it runs; [`Lints::list`] turns it into
/// [`Lint`]s.
#[derive(Debug)]
pub(crate) struct Lints {
    state: RefCell<State>,
}

#[derive(Debug)]
struct State {
    /// When a poll is long, and whether it held the thread.
    polls: LongPolls,
    /// The worst long poll, and how many there were.
    long: Option<(Spawned, Duration, Duration)>,
    long_count: u64,
    self_wakes: Vec<(Spawned, u32)>,
    no_waker: Vec<Spawned>,
    futurelocks: Vec<(Spawned, Spawned, &'static str)>,
    borrows: Vec<(Spawned, String)>,
    /// Every task met by each kind that many tasks can meet (no waker,
    /// self-wakes, borrows, in that order), kept or not, so that the
    /// report counts them all.
    met: HashMap<lines::Key, HashSet<u64>>,
    conns: Option<usize>,
}

impl Default for Lints {
    fn default() -> Lints {
        Lints {
            state: RefCell::new(State {
                polls: LongPolls::new(),
                long: None,
                long_count: 0,
                self_wakes: Vec::new(),
                no_waker: Vec::new(),
                futurelocks: Vec::new(),
                borrows: Vec::new(),
                met: Default::default(),
                conns: None,
            }),
        }
    }
}

impl Lints {
    /// The [`Lint::LongPoll`] threshold.
    pub(crate) fn threshold(&self) -> Duration {
        self.state.borrow().polls.threshold()
    }

    pub(crate) fn set_threshold(&self, threshold: Duration) {
        self.state.borrow_mut().polls.set_threshold(threshold);
    }

    pub(crate) fn set_conns(&self, conns: usize) {
        self.state.borrow_mut().conns = Some(conns);
    }

    /// A turn begins (`testbed::long_poll`).
    pub(crate) fn turn(&self) {
        self.state.borrow_mut().polls.turn();
    }

    /// A poll from `start` to `end` took the threshold or more: did it hold
    /// the thread, or was the thread preempted?
    pub(crate) fn held(&self, start: Instant, end: Instant) -> bool {
        self.state.borrow_mut().polls.held(start, end)
    }

    /// A poll of `task` took `took`, from `at` since the executor began.
    pub(crate) fn long_poll(&self, task: Spawned, took: Duration, at: Duration) {
        let mut state = self.state.borrow_mut();
        state.long_count += 1;
        if state.long.is_none_or(|(_, worst, _)| took > worst) {
            state.long = Some((task, took, at));
        }
    }

    /// `task` has now woken itself `streak` times in a row.
    pub(crate) fn self_wakes(&self, task: Spawned, streak: u32) {
        let mut state = self.state.borrow_mut();
        state
            .met
            .entry(lines::key(1, &task))
            .or_default()
            .insert(task.task.0);
        let kept = &mut state.self_wakes;
        match kept.iter().position(|(t, _)| t.task == task.task) {
            Some(at) => kept[at].1 = kept[at].1.max(streak),
            None if kept.len() < KEPT => kept.push((task, streak)),
            None => {}
        }
    }

    pub(crate) fn no_waker(&self, task: Spawned) {
        let mut state = self.state.borrow_mut();
        state
            .met
            .entry(lines::key(0, &task))
            .or_default()
            .insert(task.task.0);
        if state.no_waker.len() < KEPT && !state.no_waker.contains(&task) {
            state.no_waker.push(task);
        }
    }

    pub(crate) fn futurelock(&self, waiter: Spawned, holder: Spawned, primitive: &'static str) {
        let mut state = self.state.borrow_mut();
        let lock = (waiter, holder, primitive);
        if state.futurelocks.len() < KEPT && !state.futurelocks.contains(&lock) {
            state.futurelocks.push(lock);
        }
    }

    /// `task` panicked with `message`: kept if a `RefCell` caused it.
    pub(crate) fn panicked(&self, task: Spawned, message: &str) {
        if !(message.contains("already borrowed") || message.contains("already mutably borrowed")) {
            return;
        }
        let mut state = self.state.borrow_mut();
        state
            .met
            .entry(lines::key(2, &task))
            .or_default()
            .insert(task.task.0);
        if state.borrows.len() < KEPT {
            state.borrows.push((task, message.to_owned()));
        }
    }

    /// How many tasks met each kind that many tasks can meet, by the
    /// place they were spawned.
    pub(crate) fn met(&self) -> HashMap<lines::Key, usize> {
        let state = self.state.borrow();
        state
            .met
            .iter()
            .map(|(&key, tasks)| (key, tasks.len()))
            .collect()
    }

    /// Every lint so far, given the peak of tasks alive at once.
    pub(crate) fn list(&self, peak_tasks: usize) -> Vec<Lint> {
        let state = self.state.borrow();
        let mut lints = Vec::new();
        if let Some((task, took, at)) = state.long {
            lints.push(Lint::LongPoll {
                task,
                took,
                at,
                count: state.long_count,
            });
        }
        lints.extend(
            state
                .self_wakes
                .iter()
                .map(|&(task, streak)| Lint::SelfWakes { task, streak }),
        );
        lints.extend(state.no_waker.iter().map(|&task| Lint::NoWaker { task }));
        lints.extend(
            state
                .futurelocks
                .iter()
                .map(|&(waiter, holder, primitive)| Lint::Futurelock {
                    waiter,
                    holder,
                    primitive,
                }),
        );
        if let Some(conns) = state.conns
            && peak_tasks > many_tasks_limit(conns)
        {
            lints.push(Lint::ManyTasks {
                peak: peak_tasks,
                conns,
            });
        }
        lints.extend(
            state
                .borrows
                .iter()
                .map(|(task, message)| Lint::BorrowAcrossAwait {
                    task: *task,
                    message: message.clone(),
                }),
        );
        lints
    }
}
