//! The interpreter for runtimes of futures: a script's steps become
//! `.await`s on the runtime's own primitives, through [`AsyncRt`].
//!
//! Tokio (both flavours) and 07's executor are adapters of a few lines
//! each; what a step *means* is written here once. The wake-up steps are
//! plain futures that hand their waker to another thread: every runtime
//! of futures gets woken the same way, by `Waker::wake`.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::net::TcpStream;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::{Duration, Instant};

use crate::io_pair::{self, Peer};
use crate::script::Step;
use crate::trace::Recorder;

/// What a runtime of futures gives the interpreter.
pub trait AsyncRt: Clone + Sized + 'static {
    /// A spawned task's handle.
    type Join: 'static;
    /// The client end of the scenario's connection.
    type Conn: 'static;
    /// A one-permit semaphore, and its permit.
    type Sem: Clone + 'static;
    /// What [`AsyncRt::acquire`] gives.
    type Permit: 'static;
    /// A lock, and its guard.
    type Lock: Clone + 'static;
    /// What [`AsyncRt::lock`] gives.
    type Guard: 'static;

    /// Spawns `run_task(ctx, name, steps)` (boxed, as the runtime wants).
    fn spawn(&self, ctx: Ctx<Self>, name: &'static str, steps: Arc<[Step]>) -> Self::Join;
    /// Spawns `run_task(ctx, "detached", steps)` and lets it run on
    /// without a handle.
    fn detach(&self, ctx: Ctx<Self>, steps: Arc<[Step]>);
    /// Waits for the task: `ok`, `panicked` or `cancelled`.
    fn join(join: Self::Join) -> impl Future<Output = &'static str>;
    /// What cancels a task, kept apart from its handle (which a join
    /// takes away).
    type Abort: 'static;
    /// The task's abort handle.
    fn abort_handle(join: &Self::Join) -> Self::Abort;
    /// Cancels the task.
    fn abort(abort: &Self::Abort);
    /// A sleep of `duration`.
    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()>;
    /// Lets the other ready tasks run.
    fn yield_now(&self) -> impl Future<Output = ()>;
    /// Wraps a connected socket.
    fn conn(&self, stream: TcpStream) -> Self::Conn;
    /// Reads one line: `got <line>`, `eof` or `reset`.
    fn read_line(conn: &mut Self::Conn) -> impl Future<Output = String>;
    /// A semaphore of one permit.
    fn semaphore(&self) -> Self::Sem;
    /// Takes its permit.
    fn acquire(sem: &Self::Sem) -> impl Future<Output = Self::Permit>;
    /// A lock.
    fn new_lock(&self) -> Self::Lock;
    /// Takes the lock.
    fn lock(lock: &Self::Lock) -> impl Future<Output = Self::Guard>;
}

/// What every task of one run shares.
pub struct Ctx<R: AsyncRt> {
    shared: Arc<Shared<R>>,
}

impl<R: AsyncRt> Clone for Ctx<R> {
    fn clone(&self) -> Ctx<R> {
        Ctx {
            shared: self.shared.clone(),
        }
    }
}

struct Shared<R: AsyncRt> {
    rt: R,
    rec: Arc<Recorder>,
    /// Tasks run in parallel, or in a seeded order: the order two tasks'
    /// timers wake them in says nothing about the timers.
    unordered: bool,
    joins: Mutex<HashMap<&'static str, R::Join>>,
    aborts: Mutex<HashMap<&'static str, R::Abort>>,
    conn: Mutex<Option<R::Conn>>,
    peer: Mutex<Option<Peer>>,
    sem: R::Sem,
    lock: R::Lock,
    stop: AtomicBool,
    queued: AtomicUsize,
    stored: Mutex<Option<Waker>>,
    /// `Timers`: the base instant, and each timer's deadline and wake-up.
    timer_base: Mutex<Option<Instant>>,
    fired: Mutex<Vec<Fired>>,
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<R: AsyncRt> Ctx<R> {
    /// A context for one run on `rt`; `unordered` as
    /// [`Runtime::unordered`](crate::Runtime::unordered) says.
    pub fn new(rt: R, rec: Arc<Recorder>, unordered: bool) -> Ctx<R> {
        Ctx {
            shared: Arc::new(Shared {
                sem: rt.semaphore(),
                lock: rt.new_lock(),
                rt,
                rec,
                unordered,
                joins: Mutex::new(HashMap::new()),
                aborts: Mutex::new(HashMap::new()),
                conn: Mutex::new(None),
                peer: Mutex::new(None),
                stop: AtomicBool::new(false),
                queued: AtomicUsize::new(0),
                stored: Mutex::new(None),
                timer_base: Mutex::new(None),
                fired: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Connects the scenario's socket pair (call inside the runtime).
    ///
    /// # Errors
    ///
    /// The loopback connection failed.
    pub fn connect(&self) -> std::io::Result<()> {
        let (client, peer) = io_pair::pair()?;
        *locked(&self.shared.conn) = Some(self.shared.rt.conn(client));
        *locked(&self.shared.peer) = Some(peer);
        Ok(())
    }
}

/// Records `<name> dropped` when dropped: a task's destructors ran.
pub(crate) struct DropLog(pub(crate) Arc<Recorder>, pub(crate) &'static str);

impl Drop for DropLog {
    fn drop(&mut self) {
        self.0.log(format!("{} dropped", self.1));
    }
}

/// Runs one task's script.
pub async fn run_task<R: AsyncRt>(ctx: Ctx<R>, me: &'static str, steps: Arc<[Step]>) {
    let sh = &ctx.shared;
    let mut guards = Vec::new();
    let mut permit = None;
    let mut guard = None;
    for step in steps.iter() {
        match step {
            Step::Log(event) => sh.rec.log(*event),
            Step::Sleep(ms) => {
                let deadline = Instant::now() + Duration::from_millis(*ms);
                sh.rt.sleep_until(deadline).await;
            }
            Step::Yield => sh.rt.yield_now().await,
            Step::Spawn(name, inner) => {
                let join = sh.rt.spawn(ctx.clone(), name, inner.clone().into());
                locked(&sh.aborts).insert(name, R::abort_handle(&join));
                locked(&sh.joins).insert(name, join);
            }
            Step::Detach(inner) => sh.rt.detach(ctx.clone(), inner.clone().into()),
            Step::Join(name) => {
                let join = locked(&sh.joins).remove(name);
                let how = match join {
                    Some(join) => R::join(join).await,
                    None => "unknown",
                };
                sh.rec.log(format!("{name} {how}"));
            }
            Step::Abort(name) => {
                if let Some(abort) = locked(&sh.aborts).get(name) {
                    R::abort(abort);
                }
            }
            Step::AbortSelf(name) => {
                // Where tasks run in parallel, our own spawner may not
                // have filed our handle yet.
                while !locked(&sh.aborts).contains_key(name) {
                    sh.rt.yield_now().await;
                }
                if let Some(abort) = locked(&sh.aborts).get(name) {
                    R::abort(abort);
                }
                sh.rt.yield_now().await;
            }
            Step::Panic => panic!("scenario panic in {me}"),
            Step::WakeFromThread(times) => wake_from_thread(*times).await,
            Step::StoreWaker => {
                poll_fn(|cx| {
                    *locked(&sh.stored) = Some(cx.waker().clone());
                    Poll::Ready(())
                })
                .await
            }
            Step::WakeStored => {
                let waker = locked(&sh.stored).take();
                let _ = thread::spawn(move || waker.map(Waker::wake)).join();
            }
            Step::CloneWakerOnThread => clone_waker_on_thread().await,
            Step::DropSleep(ms) => {
                let deadline = Instant::now() + Duration::from_millis(*ms);
                let mut sleep = Box::pin(sh.rt.sleep_until(deadline));
                // One poll registers the timer; then the sleep is dropped.
                poll_fn(|cx| {
                    let _ = sleep.as_mut().poll(cx);
                    Poll::Ready(())
                })
                .await;
            }
            Step::Park => park(&sh.rec).await,
            Step::Guard(name) => guards.push(DropLog(sh.rec.clone(), name)),
            Step::Timers(n) => timers(&ctx, *n).await,
            Step::TimerAt(ms) => {
                // Where tasks run in parallel, the spawner may not have
                // set the base yet.
                let base = loop {
                    if let Some(base) = *locked(&sh.timer_base) {
                        break base;
                    }
                    sh.rt.yield_now().await;
                };
                let deadline = base + Duration::from_millis(*ms);
                let set = Instant::now();
                sh.rt.sleep_until(deadline).await;
                locked(&sh.fired).push(Fired {
                    deadline,
                    set,
                    woke: Instant::now(),
                });
            }
            Step::Read => {
                let taken = locked(&sh.conn).take();
                let Some(mut conn) = taken else {
                    sh.rec.log("no connection");
                    continue;
                };
                let line = R::read_line(&mut conn).await;
                *locked(&sh.conn) = Some(conn);
                sh.rec.log(line);
            }
            Step::PeerWrite(bytes) => peer(sh, |p| p.write(bytes)),
            Step::PeerClose => drop(locked(&sh.peer).take()),
            Step::PeerReset => {
                if let Some(p) = locked(&sh.peer).take() {
                    p.reset();
                }
            }
            Step::Reconnect => {
                drop(locked(&sh.conn).take());
                drop(locked(&sh.peer).take());
                if let Err(e) = ctx.connect() {
                    sh.rec.log(format!("reconnect failed: {e}"));
                }
            }
            Step::Acquire => permit = Some(Queued::new(R::acquire(&sh.sem), &sh.queued).await),
            Step::Release => permit = None,
            Step::Lock => guard = Some(Queued::new(R::lock(&sh.lock), &sh.queued).await),
            Step::Unlock => guard = None,
            Step::WaitQueued(n) => {
                while sh.queued.load(Ordering::SeqCst) < *n {
                    sh.rt.yield_now().await;
                }
            }
            Step::SpinUntilStop => {
                while !sh.stop.load(Ordering::SeqCst) {
                    sh.rt.yield_now().await;
                }
            }
            Step::Stop => sh.stop.store(true, Ordering::SeqCst),
            Step::Mark => {
                sh.queued.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
    drop((permit, guard));
}

fn peer<R: AsyncRt>(sh: &Shared<R>, act: impl FnOnce(&mut Peer)) {
    if let Some(p) = locked(&sh.peer).as_mut() {
        act(p);
    }
}

/// Pending once, after another thread woke this task `times` times
/// while the poll was still running: a runtime that clears "this task is
/// queued" after the poll, instead of before, loses those wakes.
async fn wake_from_thread(times: u32) {
    let mut waited = false;
    poll_fn(|cx| {
        if waited {
            return Poll::Ready(());
        }
        waited = true;
        let waker = cx.waker().clone();
        let _ = thread::spawn(move || {
            for _ in 0..times {
                waker.wake_by_ref();
            }
        })
        .join();
        Poll::Pending
    })
    .await
}

/// Pending once; the waker is cloned, sent to a thread, cloned again
/// there, woken through one clone and both dropped there.
async fn clone_waker_on_thread() {
    let mut waited = false;
    poll_fn(|cx| {
        if waited {
            return Poll::Ready(());
        }
        waited = true;
        let waker = cx.waker().clone();
        let _ = thread::spawn(move || {
            let again = waker.clone();
            drop(waker);
            again.wake_by_ref();
            drop(again);
        })
        .join();
        Poll::Pending
    })
    .await
}

/// Never ready; records each poll after the first.
async fn park(rec: &Recorder) {
    let mut first = true;
    poll_fn(|_cx| {
        if !std::mem::take(&mut first) {
            rec.log("spurious poll");
        }
        Poll::<()>::Pending
    })
    .await
}

/// `n` tasks, one timer each, deadlines shuffled over 0-9 ms after a
/// base set once they are all spawned, far enough ahead that none is due
/// before its task first runs (see [`timer_base`]).
async fn timers<R: AsyncRt>(ctx: &Ctx<R>, n: usize) {
    let sh = &ctx.shared;
    let spawning = Instant::now();
    let joins: Vec<R::Join> = (0..n)
        .map(|i| {
            let steps: Arc<[Step]> = vec![Step::TimerAt(shuffled(i, n))].into();
            sh.rt.spawn(ctx.clone(), "timer", steps)
        })
        .collect();
    *locked(&sh.timer_base) = Some(timer_base(spawning));
    for join in joins {
        R::join(join).await;
    }
    let fired = std::mem::take(&mut *locked(&sh.fired));
    sh.rec.log(timers_verdict(&fired, n, sh.unordered));
}

/// The base of `Timers`' deadlines, once every timer's task is spawned
/// (spawning began at `spawning`): 20 ms ahead, plus twice what spawning
/// took. Each task must set its timer before the deadline for the order
/// (and an early timer) to show; polling every task once costs about what
/// spawning it did, so a slow build or a loaded machine moves the base
/// with it instead of letting every deadline pass first, which would hide
/// a timer that fires at once.
pub(crate) fn timer_base(spawning: Instant) -> Instant {
    let took = spawning.elapsed();
    Instant::now() + Duration::from_millis(20) + 2 * took
}

/// Timer `i` of `n`'s offset in milliseconds: 0 to 9, in a fixed shuffle
/// (7919 is prime, so `i * 7919 % n` visits every slot once).
pub(crate) fn shuffled(i: usize, n: usize) -> u64 {
    ((i * 7919 % n.max(1)) % 10) as u64
}

/// One of `Timers`' timers: its deadline, when its sleep was set, and
/// when it woke.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fired {
    pub(crate) deadline: Instant,
    pub(crate) set: Instant,
    pub(crate) woke: Instant,
}

/// What `Timers` records; `fired` is in the order the timers woke. A
/// timer that wakes after one with a later deadline is out of order, if
/// both were set before their deadlines (a timer set late, its deadline
/// already past, may rightly be ready at once, ahead of an earlier one
/// that a busy loop has not fired yet).
pub(crate) fn timers_verdict(fired: &[Fired], n: usize, unordered: bool) -> String {
    let early = fired.iter().filter(|f| f.woke < f.deadline).count();
    let late: Vec<Duration> = if unordered {
        Vec::new()
    } else {
        fired
            .windows(2)
            .filter(|w| w[1].deadline < w[0].deadline && w.iter().all(|f| f.set < f.deadline))
            .map(|w| w[0].deadline - w[1].deadline)
            .collect()
    };
    let worst = late.iter().max().copied().unwrap_or_default();
    match (fired.len(), early, late.len()) {
        (m, _, _) if m != n => format!("{m} of {n} timers fired"),
        (_, 0, 0) => "timers fired in order, none early".to_owned(),
        (_, 0, d) => format!("{d} timers out of order, by up to {worst:?}"),
        (_, e, _) => format!("{e} timers early"),
    }
}

/// Counts, once, that `inner` returned `Pending`: its task is queued.
struct Queued<'a, F> {
    inner: Pin<Box<F>>,
    queued: &'a AtomicUsize,
    counted: bool,
}

impl<'a, F: Future> Queued<'a, F> {
    fn new(inner: F, queued: &'a AtomicUsize) -> Queued<'a, F> {
        Queued {
            inner: Box::pin(inner),
            queued,
            counted: false,
        }
    }
}

impl<F: Future> Future for Queued<'_, F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let polled = self.inner.as_mut().poll(cx);
        if polled.is_pending() && !self.counted {
            self.counted = true;
            self.queued.fetch_add(1, Ordering::SeqCst);
        }
        polled
    }
}

/// Pending once, after waking itself: the task goes to the back of the
/// ready queue. (Tokio's own `yield_now` also waits until the loop has
/// looked at I/O; this one leaves that to the runtime's queue.)
pub async fn yield_once() {
    let mut yielded = false;
    poll_fn(|cx| {
        if std::mem::replace(&mut yielded, true) {
            return Poll::Ready(());
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    })
    .await
}
