//! The loop and the tasks: a ready queue other threads push to, a poll
//! under `catch_unwind`, and the order of a turn (tasks, timers, I/O,
//! then the tasks that yielded).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use super::Fault;
use super::io::Reactor;
use super::sync::JoinState;
use super::time::Timers;

/// Tasks polled in a turn before the loop looks at timers and I/O.
const BUDGET: usize = 61;
/// A run gives up after this long (a fault that never ends).
const GIVE_UP: Duration = Duration::from_millis(1500);

type BoxFuture = Pin<Box<dyn Future<Output = ()>>>;

/// The ready queue, shared with wakers on any thread.
pub(super) struct Queue {
    ready: Mutex<VecDeque<u64>>,
    /// Interrupts the reactor's wait.
    pub(super) notify: mio::Waker,
}

struct TaskWaker {
    id: u64,
    scheduled: AtomicBool,
    queue: Arc<Queue>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.scheduled.swap(true, Ordering::SeqCst) {
            self.queue.ready.lock().unwrap().push_back(self.id);
            let _ = self.queue.notify.wake();
        }
    }
}

struct Task {
    future: Option<BoxFuture>,
    waker: Arc<TaskWaker>,
    join: Rc<JoinState>,
    aborted: bool,
    finished: bool,
}

/// Everything the runtime's parts share.
pub(super) struct Core {
    pub(super) fault: Option<Fault>,
    tasks: RefCell<HashMap<u64, Task>>,
    next: Cell<u64>,
    pub(super) queue: Arc<Queue>,
    pub(super) timers: RefCell<Timers>,
    pub(super) reactor: RefCell<Reactor>,
    deferred: RefCell<Vec<Waker>>,
    /// Panics that are not a scenario's own.
    pub(super) strange_panics: RefCell<Vec<String>>,
}

impl Core {
    pub(super) fn new(fault: Option<Fault>) -> std::io::Result<Rc<Core>> {
        let (reactor, notify) = Reactor::new()?;
        Ok(Rc::new(Core {
            fault,
            tasks: RefCell::new(HashMap::new()),
            next: Cell::new(1),
            queue: Arc::new(Queue {
                ready: Mutex::new(VecDeque::new()),
                notify,
            }),
            timers: RefCell::new(Timers::default()),
            reactor: RefCell::new(reactor),
            deferred: RefCell::new(Vec::new()),
            strange_panics: RefCell::new(Vec::new()),
        }))
    }

    pub(super) fn has(&self, fault: Fault) -> bool {
        self.fault == Some(fault)
    }

    pub(super) fn spawn(&self, future: impl Future<Output = ()> + 'static) -> (u64, Rc<JoinState>) {
        let id = self.next.get();
        self.next.set(id + 1);
        let waker = Arc::new(TaskWaker {
            id,
            scheduled: AtomicBool::new(false),
            queue: self.queue.clone(),
        });
        let join = Rc::new(JoinState::default());
        let task = Task {
            future: Some(Box::pin(future)),
            waker: waker.clone(),
            join: join.clone(),
            aborted: false,
            finished: false,
        };
        self.tasks.borrow_mut().insert(id, task);
        if self.has(Fault::SpawnRunsInline) {
            self.poll_task(id);
        } else if !self.has(Fault::SpawnNotScheduled) {
            Waker::from(waker).wake();
        }
        (id, join)
    }

    /// Cancels task `id`: its future dropped now, or after its poll if
    /// it is the one being polled.
    pub(super) fn abort(&self, id: u64, join: &JoinState) {
        if self.has(Fault::AbortIgnored) {
            return;
        }
        if join.is_done() {
            if self.has(Fault::AbortClobbersResult) {
                join.overwrite("cancelled");
            }
            return;
        }
        let taken = {
            let mut tasks = self.tasks.borrow_mut();
            match tasks.get_mut(&id) {
                Some(task) if task.future.is_none() => {
                    task.aborted = true;
                    None
                }
                Some(_) => tasks.remove(&id),
                None => None,
            }
        };
        if let Some(task) = taken {
            drop(task.future);
            task.join.finish("cancelled");
        }
    }

    /// Yields: the waker is woken after the loop has looked at I/O.
    pub(super) fn defer(&self, waker: &Waker) {
        if self.has(Fault::YieldNoDefer) || self.has(Fault::NoFairness) {
            waker.wake_by_ref();
        } else {
            self.deferred.borrow_mut().push(waker.clone());
        }
    }

    fn pop(&self) -> Option<u64> {
        let mut ready = self.queue.ready.lock().unwrap();
        if self.has(Fault::LifoReady) {
            ready.pop_back()
        } else {
            ready.pop_front()
        }
    }

    fn poll_task(&self, id: u64) {
        let (mut future, waker, flag) = {
            let mut tasks = self.tasks.borrow_mut();
            let Some(task) = tasks.get_mut(&id) else {
                return;
            };
            let Some(future) = task.future.take() else {
                return;
            };
            (future, Waker::from(task.waker.clone()), task.waker.clone())
        };
        if !self.has(Fault::LostWake) {
            flag.scheduled.store(false, Ordering::SeqCst);
        }
        let mut cx = Context::from_waker(&waker);
        let polled = if self.has(Fault::PanicEscapes) {
            Ok(future.as_mut().poll(&mut cx))
        } else {
            panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx)))
        };
        if self.has(Fault::LostWake) {
            flag.scheduled.store(false, Ordering::SeqCst);
        }
        let mut tasks = self.tasks.borrow_mut();
        let Some(task) = tasks.get_mut(&id) else {
            return;
        };
        match polled {
            Ok(Poll::Pending) if task.aborted => {
                let task = tasks.remove(&id).expect("just seen");
                drop(tasks);
                drop(future);
                task.join.finish("cancelled");
            }
            Ok(Poll::Pending) => task.future = Some(future),
            Ok(Poll::Ready(())) if self.has(Fault::PollFinished) => {
                // Kept, as if still running: the next wake polls it again.
                task.finished = true;
                task.future = Some(future);
                let join = task.join.clone();
                drop(tasks);
                join.finish("ok");
            }
            Ok(Poll::Ready(())) => {
                let task = tasks.remove(&id).expect("just seen");
                drop(tasks);
                task.join.finish("ok");
            }
            Err(payload) => {
                let task = tasks.remove(&id).expect("just seen");
                drop(tasks);
                drop(future);
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                if !message.starts_with("scenario panic") {
                    self.strange_panics.borrow_mut().push(message);
                }
                if !task.finished {
                    task.join.finish("panicked");
                }
            }
        }
    }

    /// Runs until `root` is done; `Err` when it cannot end.
    pub(super) fn block_on(&self, root: impl Future<Output = ()> + 'static) -> Result<(), String> {
        let started = Instant::now();
        let (_, root) = self.spawn(root);
        if self.has(Fault::SpawnNotScheduled) {
            // The root at least must start, or nothing would.
            self.queue.ready.lock().unwrap().push_back(1);
        }
        while !root.is_done() {
            let mut polled = 0;
            while let Some(id) = self.pop() {
                self.poll_task(id);
                polled += 1;
                if started.elapsed() > GIVE_UP {
                    return Err("gave up: the loop never ended".into());
                }
                if root.is_done() || (polled >= BUDGET && !self.has(Fault::NoFairness)) {
                    break;
                }
            }
            if root.is_done() {
                break;
            }
            let fired = self.timers.borrow_mut().fire(self.fault);
            let idle = fired == 0
                && self.queue.ready.lock().unwrap().is_empty()
                && self.deferred.borrow().is_empty();
            let timeout = if !idle {
                Some(Duration::ZERO)
            } else {
                self.timers.borrow().next_wait(self.fault)
            };
            // Nothing queued, no timer, and no event within 100 ms: every
            // event of a scenario comes from its own tasks, so none will.
            // Never past the time this run gives up at.
            let left = GIVE_UP.saturating_sub(started.elapsed());
            let wait = timeout.unwrap_or(Duration::from_millis(100)).min(left);
            let woke = self.reactor.borrow_mut().poll(Some(wait), self.fault)?;
            if idle && timeout.is_none() && woke == 0 && self.queue.ready.lock().unwrap().is_empty()
            {
                return Err("stuck: tasks wait and nothing can wake them".into());
            }
            for waker in self.deferred.take() {
                waker.wake();
            }
            if started.elapsed() > GIVE_UP {
                return Err("gave up: the run never ended".into());
            }
        }
        Ok(())
    }

    /// Drops every task left (their destructors run), unless the fault
    /// leaks them.
    pub(super) fn shut_down(&self) {
        let tasks: Vec<Task> = self.tasks.borrow_mut().drain().map(|(_, t)| t).collect();
        for task in tasks {
            if self.has(Fault::LeakOnDrop) {
                std::mem::forget(task.future);
            } else {
                let _ = panic::catch_unwind(AssertUnwindSafe(|| drop(task.future)));
            }
        }
        self.deferred.take();
        self.timers.borrow_mut().clear();
        self.reactor.borrow_mut().clear();
    }
}
