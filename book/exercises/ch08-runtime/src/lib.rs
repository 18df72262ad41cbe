//! Chapter 8, the capstone: a runtime of futures of your own.
//!
//! Chapter 8 took 07's executor apart: a `block_on`, tasks in a ready
//! queue, wakers that put a task back in the queue, a heap of timers and a
//! reactor that turns "this socket is readable" into a wake. Here you
//! build one, small enough to read in one sitting, on stage 4's
//! [`Selector`]. The types below and the [`Learner`] glue at the bottom are
//! given; every body marked in the starter is yours.
//!
//! The behaviour suite grades it, stage by stage (`cargo test -p
//! ch08-runtime`): 1 `block_on`, 2 spawn and join, 3 timers, 4 I/O, 5 wakes
//! from other threads, 6 abort and drop, 7 fairness under load. A stage
//! runs once the ones before it pass; a failure names the stage, the
//! scenario, and prints the trace it expected beside the one your runtime
//! recorded.
//!
//! One thread runs everything: tasks are `Rc`s and `RefCell`s. Only the
//! wakers cross threads (stage 5), so the ready queue is behind a `Mutex`,
//! and a wake also writes a byte to a socket the selector watches, the
//! *bell*, so that a loop asleep in the selector hears of it.

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch08-runtime");

mod reactor;
mod task;
mod timers;
mod yield_now;

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::future::{Future, poll_fn};
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Waker};
use std::time::Instant;

use runtime_spec::grade::{Joined, Learner};
use select::event::{Interest, Token};
use select::{Backend, Selector};

pub use reactor::Readable;
pub use task::JoinHandle;
use task::{ReadyQueue, Task, TaskWaker};
pub use timers::Sleep;
pub use yield_now::YieldNow;

/// A task's future, boxed so that tasks of every type fit in one map.
type BoxFuture = Pin<Box<dyn Future<Output = ()>>>;

/// The ready queue's id for `block_on`'s own future (tasks count from 1).
const ROOT: usize = 0;
/// The bell's token in the selector (sockets use their descriptor number).
const BELL: Token = Token::new(usize::MAX - 1);

/// The runtime: owns every task. Dropping it drops every task's future.
pub struct Runtime {
    inner: Rc<Inner>,
}

/// What tasks keep to reach the runtime: spawn (`task.rs`), sleep
/// (`timers.rs`), yield (`yield_now.rs`), wait for a socket (`reactor.rs`).
#[derive(Clone)]
pub struct Spawner {
    inner: Rc<Inner>,
}

/// Everything the loop and the futures share, on the runtime's thread.
struct Inner {
    /// Tasks that have not ended, by id.
    tasks: RefCell<HashMap<usize, Rc<Task>>>,
    /// The next id, for a task or a sleep.
    next_id: Cell<usize>,
    /// Ids of the woken tasks, in the order they were woken.
    ready: Arc<ReadyQueue>,
    /// The bell's other end, which the selector watches.
    bell: UnixStream,
    /// Sleeps not yet fired: deadline and sleep id, soonest on top.
    timers: RefCell<BinaryHeap<Reverse<(Instant, usize)>>>,
    /// The waker of each sleep still waiting, by sleep id.
    sleepers: RefCell<HashMap<usize, Waker>>,
    /// Stage 4's selector.
    selector: RefCell<Selector>,
    /// Each socket waited on (by token): its waker, `None` once its event came.
    readers: RefCell<HashMap<Token, Option<Waker>>>,
    /// Tasks that yielded: woken once the loop has looked at I/O and timers.
    yielded: RefCell<Vec<Waker>>,
}

/// Locks the ready queue; a panic elsewhere does not make it unusable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Runtime {
    /// A runtime with nothing spawned: its selector, watching the bell.
    ///
    /// # Errors
    ///
    /// The selector or the bell could not be made.
    pub fn new() -> io::Result<Runtime> {
        // EXERCISE-BEGIN: what must the selector watch from the start, so that a wake from another thread can reach a loop asleep in it?
        let (bell, ringer) = UnixStream::pair()?;
        bell.set_nonblocking(true)?;
        ringer.set_nonblocking(true)?;
        let mut selector = Selector::new(Backend::Epoll)?;
        selector.add(bell.as_fd(), BELL, Interest::Read)?;
        let ready = Arc::new(ReadyQueue {
            ids: Mutex::new(VecDeque::new()),
            bell: ringer,
        });
        Ok(Runtime {
            inner: Rc::new(Inner {
                tasks: RefCell::new(HashMap::new()),
                next_id: Cell::new(ROOT + 1),
                ready,
                bell,
                timers: RefCell::new(BinaryHeap::new()),
                sleepers: RefCell::new(HashMap::new()),
                selector: RefCell::new(selector),
                readers: RefCell::new(HashMap::new()),
                yielded: RefCell::new(Vec::new()),
            }),
        })
        // EXERCISE-END
    }

    /// A spawner for tasks of this runtime.
    pub fn spawner(&self) -> Spawner {
        Spawner {
            inner: self.inner.clone(),
        }
    }

    // ANCHOR: block_on
    /// Runs `future`, and every task, until `future` is ready.
    pub fn block_on(&self, future: impl Future<Output = ()>) {
        // EXERCISE-BEGIN: when may the loop poll your future again, what does it do in one turn, and when may it sleep?
        let mut root = pin!(future);
        let root_waker = Waker::from(Arc::new(TaskWaker {
            id: ROOT,
            ready: self.inner.ready.clone(),
        }));
        root_waker.wake_by_ref();
        loop {
            // One turn runs the tasks woken before it began; a task woken
            // meanwhile (even by itself) waits for the next turn.
            let ready = std::mem::take(&mut *lock(&self.inner.ready.ids));
            for id in ready {
                if id != ROOT {
                    self.inner.run_task(id);
                } else if root
                    .as_mut()
                    .poll(&mut Context::from_waker(&root_waker))
                    .is_ready()
                {
                    return;
                }
            }
            self.inner.wait_for_events();
            self.inner.fire_timers();
            // A yield goes after what I/O and the timers woke.
            for waker in self.inner.yielded.take() {
                waker.wake();
            }
        }
        // EXERCISE-END
    }
    // ANCHOR_END: block_on
}

impl Drop for Runtime {
    fn drop(&mut self) {
        // EXERCISE-BEGIN: each pending future holds a Spawner, and so the runtime: what breaks that circle, so that their destructors run?
        let tasks: Vec<Rc<Task>> = self
            .inner
            .tasks
            .borrow_mut()
            .drain()
            .map(|(_, t)| t)
            .collect();
        for task in tasks {
            task.end(Joined::Cancelled);
            drop(task.future.take());
        }
        // EXERCISE-END
    }
}

/// The grade's view of this runtime: each call goes to the code above.
impl Learner for Runtime {
    type Spawner = Spawner;
    type Task = JoinHandle;

    fn new() -> io::Result<Runtime> {
        Runtime::new()
    }

    fn spawner(&self) -> Spawner {
        Runtime::spawner(self)
    }

    fn block_on(&self, future: impl Future<Output = ()>) {
        Runtime::block_on(self, future);
    }

    fn spawn(spawner: &Spawner, future: impl Future<Output = ()> + 'static) -> JoinHandle {
        spawner.spawn(future)
    }

    fn join(task: &JoinHandle) -> impl Future<Output = Joined> {
        poll_fn(|cx| task.poll_join(cx))
    }

    fn abort(task: &JoinHandle) {
        task.abort();
    }

    fn sleep_until(spawner: &Spawner, deadline: Instant) -> impl Future<Output = ()> {
        spawner.sleep_until(deadline)
    }

    fn yield_now(spawner: &Spawner) -> impl Future<Output = ()> {
        spawner.yield_now()
    }

    fn readable<'a>(spawner: &Spawner, fd: BorrowedFd<'a>) -> impl Future<Output = ()> + 'a {
        spawner.readable(fd)
    }
}
