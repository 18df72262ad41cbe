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

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::future::{Future, poll_fn};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use runtime_spec::grade::{Joined, Learner};
use select::event::{Interest, Token};
use select::{Backend, Selector};

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

/// What tasks keep to reach the runtime: spawn, sleep, wait for a socket.
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

/// The ready queue, shared with every waker, on any thread.
struct ReadyQueue {
    ids: Mutex<VecDeque<usize>>,
    /// Rings the bell: one byte that wakes the selector.
    bell: UnixStream,
}

/// A spawned task.
struct Task {
    /// `None` while the loop polls it, and once it has ended.
    future: RefCell<Option<BoxFuture>>,
    /// How it ended, once it has.
    ended: Cell<Option<Joined>>,
    /// Whoever waits in [`JoinHandle`] for it to end.
    joiner: RefCell<Option<Waker>>,
    /// Its waker, made once.
    waker: Waker,
}

/// What a task's waker holds: which task, and the queue to put it in.
struct TaskWaker {
    id: usize,
    ready: Arc<ReadyQueue>,
}

/// A spawned task's handle: join it, or abort it. Dropping it lets the
/// task run on.
pub struct JoinHandle {
    id: usize,
    task: Rc<Task>,
    inner: Rc<Inner>,
}

/// Ready at its deadline, never before.
pub struct Sleep {
    spawner: Spawner,
    deadline: Instant,
    /// Its id once it is in the timer heap.
    id: Option<usize>,
}

/// Pending once; its task goes after the I/O and timers of this turn.
pub struct YieldNow {
    spawner: Spawner,
    yielded: bool,
}

/// Ready when the socket has something to read.
pub struct Readable<'a> {
    spawner: Spawner,
    fd: BorrowedFd<'a>,
    /// It is in the selector and in `readers`.
    registered: bool,
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

impl Spawner {
    /// Starts `future` as a task; it first runs once the caller lets go.
    pub fn spawn(&self, future: impl Future<Output = ()> + 'static) -> JoinHandle {
        // EXERCISE-BEGIN: where does a new task wait for its first poll, and what does its waker need to know?
        let id = self.inner.next_id.replace(self.inner.next_id.get() + 1);
        let task = Rc::new(Task {
            future: RefCell::new(Some(Box::pin(future))),
            ended: Cell::new(None),
            joiner: RefCell::new(None),
            waker: Waker::from(Arc::new(TaskWaker {
                id,
                ready: self.inner.ready.clone(),
            })),
        });
        self.inner.tasks.borrow_mut().insert(id, task.clone());
        task.waker.wake_by_ref();
        JoinHandle {
            id,
            task,
            inner: self.inner.clone(),
        }
        // EXERCISE-END
    }

    /// Ready at `deadline`, never before.
    pub fn sleep_until(&self, deadline: Instant) -> Sleep {
        Sleep {
            spawner: self.clone(),
            deadline,
            id: None,
        }
    }

    /// Lets the other tasks, I/O and timers go first.
    pub fn yield_now(&self) -> YieldNow {
        YieldNow {
            spawner: self.clone(),
            yielded: false,
        }
    }

    /// Ready when `fd` has something to read.
    pub fn readable<'a>(&self, fd: BorrowedFd<'a>) -> Readable<'a> {
        Readable {
            spawner: self.clone(),
            fd,
            registered: false,
        }
    }
}

impl Inner {
    /// Polls task `id` once, if it has not ended; ends it if it is done.
    fn run_task(&self, id: usize) {
        // EXERCISE-BEGIN: a task that has ended may still be woken: what do you poll then? And what if the poll panics, or the task aborts itself while it runs?
        let Some(task) = self.tasks.borrow().get(&id).cloned() else {
            return;
        };
        // Out of the RefCell while it runs: the task may spawn, or abort itself.
        let Some(mut future) = task.future.take() else {
            return;
        };
        let polled = catch_unwind(AssertUnwindSafe(|| {
            future.as_mut().poll(&mut Context::from_waker(&task.waker))
        }));
        let how = match polled {
            Ok(Poll::Pending) if task.ended.get().is_none() => {
                *task.future.borrow_mut() = Some(future);
                return;
            }
            // It aborted itself: drop it, as abort would have.
            Ok(Poll::Pending) => Joined::Cancelled,
            Ok(Poll::Ready(())) => Joined::Finished,
            Err(_) => Joined::Panicked,
        };
        self.tasks.borrow_mut().remove(&id);
        drop(future);
        task.end(how);
        // EXERCISE-END
    }

    /// Sleeps in the selector until a socket, a wake or the next timer,
    /// and wakes the tasks whose sockets are ready.
    fn wait_for_events(&self) {
        // EXERCISE-BEGIN: how long may the loop sleep, and what does it do with each event it is handed?
        let busy = !lock(&self.ready.ids).is_empty() || !self.yielded.borrow().is_empty();
        let timeout = if busy {
            Some(Duration::ZERO)
        } else {
            let next = self.timers.borrow().peek().map(|Reverse((at, _))| *at);
            next.map(|at| at.saturating_duration_since(Instant::now()))
        };
        let mut events = Vec::new();
        if let Err(e) = self.selector.borrow_mut().wait(&mut events, timeout) {
            panic!("the selector failed: {e}");
        }
        for event in events {
            if event.token == BELL {
                // Empty it, or it stays readable.
                while matches!((&self.bell).read(&mut [0; 64]), Ok(n) if n > 0) {}
            } else if let Some(Some(waker)) = self
                .readers
                .borrow_mut()
                .get_mut(&event.token)
                .map(Option::take)
            {
                waker.wake();
            }
        }
        // EXERCISE-END
    }

    /// Wakes every sleep whose deadline has passed.
    fn fire_timers(&self) {
        // EXERCISE-BEGIN: which timers are due, and how do you reach them in deadline order without looking at the others?
        let now = Instant::now();
        loop {
            let due = {
                let mut timers = self.timers.borrow_mut();
                match timers.peek() {
                    Some(Reverse((at, _))) if *at <= now => timers.pop(),
                    _ => None,
                }
            };
            let Some(Reverse((_, id))) = due else { break };
            // A dropped sleep left its entry: nobody to wake.
            if let Some(waker) = self.sleepers.borrow_mut().remove(&id) {
                waker.wake();
            }
        }
        // EXERCISE-END
    }
}

impl Task {
    /// Records how it ended (the first time only) and wakes its joiner.
    fn end(&self, how: Joined) {
        if self.ended.get().is_none() {
            self.ended.set(Some(how));
            if let Some(joiner) = self.joiner.take() {
                joiner.wake();
            }
        }
    }
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // EXERCISE-BEGIN: this may run on any thread, while the loop sleeps in the selector: how does the loop hear of it?
        lock(&self.ready.ids).push_back(self.id);
        // A full bell is ringing already: a failed write loses nothing.
        let _ = (&self.ready.bell).write(&[1]);
        // EXERCISE-END
    }
}

impl JoinHandle {
    /// Ready with how the task ended, once it has.
    pub fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Joined> {
        // EXERCISE-BEGIN: if the task has not ended, who will wake this waiter when it does?
        match self.task.ended.get() {
            Some(how) => Poll::Ready(how),
            None => {
                *self.task.joiner.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            }
        }
        // EXERCISE-END
    }

    /// Cancels the task: its future is dropped now, and never polled again.
    pub fn abort(&self) {
        // EXERCISE-BEGIN: what if the task has already ended, or is the one running right now?
        if self.task.ended.get().is_some() {
            return;
        }
        self.inner.tasks.borrow_mut().remove(&self.id);
        self.task.end(Joined::Cancelled);
        // `None` if it is running (it aborts itself): `run_task` drops it.
        drop(self.task.future.take());
        // EXERCISE-END
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // EXERCISE-BEGIN: how does a sleep get into the timer heap, and how does it know, when polled, that it has fired?
        let inner = self.spawner.inner.clone();
        let Some(id) = self.id else {
            // Even a sleep already due goes through the heap: it yields.
            let id = inner.next_id.replace(inner.next_id.get() + 1);
            inner.timers.borrow_mut().push(Reverse((self.deadline, id)));
            inner.sleepers.borrow_mut().insert(id, cx.waker().clone());
            self.id = Some(id);
            return Poll::Pending;
        };
        match inner.sleepers.borrow_mut().get_mut(&id) {
            Some(waker) => {
                waker.clone_from(cx.waker());
                Poll::Pending
            }
            None => Poll::Ready(()),
        }
        // EXERCISE-END
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        // EXERCISE-BEGIN: a sleep dropped before its deadline: what must its timer not do any more?
        if let Some(id) = self.id {
            self.spawner.inner.sleepers.borrow_mut().remove(&id);
        }
        // EXERCISE-END
    }
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // EXERCISE-BEGIN: a task that wakes itself at once goes before a socket that became readable meanwhile: where does its waker wait instead?
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        self.spawner
            .inner
            .yielded
            .borrow_mut()
            .push(cx.waker().clone());
        Poll::Pending
        // EXERCISE-END
    }
}

impl Future for Readable<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // EXERCISE-BEGIN: what does the selector need to know, each time a task waits for this socket, and how does the future learn its event came?
        let inner = self.spawner.inner.clone();
        let token = Token::new(self.fd.as_raw_fd() as usize);
        if !self.registered {
            // One registration per wait, deleted when the wait ends (in
            // `drop`): a closed descriptor's number, reused, starts afresh.
            if let Err(e) = inner
                .selector
                .borrow_mut()
                .add(self.fd, token, Interest::Read)
            {
                panic!("registering a socket failed: {e}");
            }
            inner
                .readers
                .borrow_mut()
                .insert(token, Some(cx.waker().clone()));
            self.registered = true;
            return Poll::Pending;
        }
        match inner.readers.borrow_mut().get_mut(&token) {
            Some(Some(waker)) => {
                waker.clone_from(cx.waker());
                Poll::Pending
            }
            _ => Poll::Ready(()),
        }
        // EXERCISE-END
    }
}

impl Drop for Readable<'_> {
    fn drop(&mut self) {
        // EXERCISE-BEGIN: the wait is over: what must the selector forget before the socket may close?
        if self.registered {
            let inner = &self.spawner.inner;
            let token = Token::new(self.fd.as_raw_fd() as usize);
            inner.readers.borrow_mut().remove(&token);
            let _ = inner.selector.borrow_mut().delete(self.fd);
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
