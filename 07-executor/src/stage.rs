//! Stage 7 as a [`Stage`]: a task per item, at most `--conns` at once,
//! each running [`request`] over a connection from a free list.
//!
//! The shape is stage 6's, in futures: the `block_on` future takes a
//! permit of a FIFO [`Semaphore`] of `--conns` permits before it spawns
//! each item's task, and the permit moves into the task, so at most
//! `--conns` tasks (and futures) exist at once. Each task takes a
//! connection slot from the free list (there are `--conns` slots, so it
//! always finds one), connects if the slot has no connection, runs the
//! request, records the outcome through the one database connection, and
//! puts the slot back. When all the permits are back, every item is done.
//!
//! # `--read-timeout` is `timeout(request)`
//!
//! The limit bounds the whole conversation (both phases). When it fires,
//! the request future is dropped where it stands, say after `HEAD` and
//! before `OK`, and the connection's [`InFlight`] guard poisons it. The
//! slot then closes that connection and the next task opens a new one.
//! `--reuse-cancelled` (hidden; for the chapter and its test) keeps a
//! poisoned connection instead, which is the bug: the late `OK` or `200`
//! is read by the next item on that connection as its own, and the report
//! counts `wrong` rows.
//!
//! Not here: the executor (`executor.rs`); the request (`request.rs`).
//!
//! [`InFlight`]: crate::InFlight

use std::cell::{Cell, RefCell};
use std::io;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use testbed::machine::peak_rss_mib;
use testbed::outcome::{ErrorKind, Failure, Outcome};
use testbed::protocol::Phases;
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::store::{Lane, Store, StoreError};
use testbed::workload::Item;

use crate::conn::AsyncConn;
use crate::executor::{Executor, RunError};
use crate::handle::Handle;
use crate::hook::Hook;
use crate::request::request;
use crate::semaphore::Semaphore;
use crate::stats::Stats;

/// How many task panics the report lists by name (the count is always
/// there): a bug that panics every task should not print 20,000 lines.
const PANICS_LISTED: usize = 5;

/// The futures stage.
///
/// # Examples
///
/// The whole stage, as the `07-executor` binary runs it, against an
/// embedded server:
///
/// ```
/// use executor::Futures;
/// use testbed::cli::Settings;
/// use testbed::harness::execute;
///
/// let settings = Settings {
///     items: 20,
///     conns: 5,
///     latency: "1ms".parse()?,
///     ..Settings::default()
/// };
/// let execution = execute(&Futures::default(), &settings)?;
/// assert_eq!((execution.report.ok, execution.report.wrong), (20, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Futures {
    /// Keep a connection whose request was cancelled by the read timeout
    /// (`--reuse-cancelled`): the bug this stage's chapter is about, kept
    /// to be shown. Never set it for real work.
    pub reuse_cancelled: bool,
    /// Code of the caller's, run in each item's task before its request
    /// (`hook.rs`): how chapter 8's examples put a bug into the stage.
    pub hook: Option<Hook>,
}

impl Stage for Futures {
    fn name(&self) -> &'static str {
        "executor"
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let executor = Executor::new()?;
        if scenario.record_tasks {
            executor.record_tasks();
        }
        let handle = executor.handle();
        let conns = scenario.conns.min(scenario.items.len()).max(1);
        executor.set_conns(conns);
        let shared = Rc::new(Shared {
            handle: handle.clone(),
            server: scenario.server,
            phases: scenario.phases,
            read_timeout: scenario.read_timeout,
            connect_timeout: scenario.connect_timeout,
            reuse_cancelled: self.reuse_cancelled,
            hook: self.hook.clone(),
            store: RefCell::new(scenario.open_store()?),
            store_error: RefCell::new(None),
            // Popped from the end: lane 0 goes first.
            free: RefCell::new((0..conns).rev().map(ConnSlot::new).collect()),
            sizes: Cell::new(Sizes::default()),
        });

        // ANCHOR: stage_run
        let limit = Semaphore::new(&handle, conns);
        let items = scenario.items.clone();
        let main = async {
            for item in items {
                // Waits here while `conns` tasks are running.
                let permit = limit.acquire().await;
                let task = shared.clone().process(item);
                shared.note_task_size(std::mem::size_of_val(&task));
                handle.spawn(async move {
                    task.await;
                    drop(permit);
                });
            }
            // Every permit back: every task has finished.
            let mut back = Vec::with_capacity(conns);
            for _ in 0..conns {
                back.push(limit.acquire().await);
            }
        };
        executor
            .block_on(main)
            .map_err(|error| failed(&executor, error))?;
        // ANCHOR_END: stage_run

        if let Some(error) = shared.store_error.borrow_mut().take() {
            return Err(error.into());
        }
        Ok(run_stats(
            conns,
            &executor,
            shared.sizes.get(),
            scenario.epoch,
        ))
    }
}

/// What every item's task shares: where to send, where to record.
struct Shared {
    handle: Handle,
    server: SocketAddr,
    phases: Phases,
    read_timeout: Option<Duration>,
    connect_timeout: Duration,
    reuse_cancelled: bool,
    hook: Option<Hook>,
    /// The one database connection: tasks take turns, and a record never
    /// awaits, so a `RefCell` is enough.
    store: RefCell<Store>,
    /// The first failure to record; the run reports it at the end.
    store_error: RefCell<Option<StoreError>>,
    /// Free connection slots.
    free: RefCell<Vec<ConnSlot>>,
    sizes: Cell<Sizes>,
}

/// The sizes of the futures, in bytes, for the report.
#[derive(Debug, Clone, Copy, Default)]
struct Sizes {
    /// One `request` future (what a waiting request costs).
    request: usize,
    /// One item's whole task future (request, timeout, connect, record).
    task: usize,
}

/// A lane of the timeline and the connection that serves it, if open.
struct ConnSlot {
    lane: Lane,
    conn: Option<AsyncConn>,
}

impl ConnSlot {
    fn new(lane: usize) -> ConnSlot {
        ConnSlot {
            lane: Lane::of(lane),
            conn: None,
        }
    }
}

impl Shared {
    /// One item, start to finish: the body of an item's task.
    async fn process(self: Rc<Self>, item: Item) {
        let started = Instant::now();
        // ANCHOR: hook
        if let Some(hook) = &self.hook {
            hook.before(&self.handle, &item).await;
        }
        // ANCHOR_END: hook
        let mut slot = self
            .free
            .borrow_mut()
            .pop()
            .expect("the semaphore admits `conns` tasks and there are `conns` slots");
        let outcome = self.request(&mut slot.conn, &item).await;
        // ANCHOR: keep_or_close
        // A connection that broke, or whose conversation was cut short,
        // cannot carry the next request: the slot's next task reconnects.
        let keep = match &slot.conn {
            Some(conn) if self.reuse_cancelled => !conn.is_broken(), // The bug.
            Some(conn) => conn.is_reusable(),
            None => false,
        };
        if !keep {
            slot.conn = None;
        }
        // ANCHOR_END: keep_or_close
        let recorded = self
            .store
            .borrow_mut()
            .record(item.id, slot.lane, started, &outcome);
        if let Err(error) = recorded {
            self.store_error.borrow_mut().get_or_insert(error);
        }
        self.free.borrow_mut().push(slot);
    }

    // ANCHOR: same_request
    /// Sends one item over the slot's connection, connecting first if it
    /// has none, within `--read-timeout` if there is one.
    async fn request(&self, conn: &mut Option<AsyncConn>, item: &Item) -> Outcome {
        let conn = match conn {
            Some(conn) => conn,
            None => conn.insert(self.connect().await?),
        };
        let exchange = request(conn, item, self.phases);
        self.note_request_size(std::mem::size_of_val(&exchange));
        let Some(limit) = self.read_timeout else {
            return exchange.await;
        };
        match self.handle.timeout(limit, exchange).await {
            Ok(outcome) => outcome,
            // The request future has been dropped, mid-conversation.
            Err(elapsed) => Err(Failure::new(ErrorKind::Timeout, elapsed.to_string())),
        }
    }
    // ANCHOR_END: same_request

    /// Opens a connection, within `--connect-timeout`.
    async fn connect(&self) -> Result<AsyncConn, Failure> {
        let connecting = AsyncConn::connect(&self.handle, self.server);
        match self.handle.timeout(self.connect_timeout, connecting).await {
            Ok(Ok(conn)) => Ok(conn),
            Ok(Err(e)) => Err(Failure::from_io(&e)),
            Err(elapsed) => Err(Failure::new(
                ErrorKind::Timeout,
                format!("connect: {elapsed}"),
            )),
        }
    }

    fn note_request_size(&self, bytes: usize) {
        let mut sizes = self.sizes.get();
        sizes.request = sizes.request.max(bytes);
        self.sizes.set(sizes);
    }

    fn note_task_size(&self, bytes: usize) {
        let mut sizes = self.sizes.get();
        sizes.task = sizes.task.max(bytes);
        self.sizes.set(sizes);
    }
}

/// A run that could not finish (a stuck one, say), as the stage's error,
/// followed by the lints, which say which task, spawned where.
fn failed(executor: &Executor, error: RunError) -> io::Error {
    let lints: String = executor
        .lint_lines()
        .iter()
        .map(|lint| format!("; {lint}"))
        .collect();
    io::Error::other(format!("{error}{lints}"))
}

/// The report's view of a run: concurrency for Little's law, the
/// executor's counters, the futures' sizes beside a fiber's stack, and
/// the process's peak memory.
fn run_stats(conns: usize, executor: &Executor, sizes: Sizes, epoch: Instant) -> RunStats {
    let stats: Stats = executor.stats();
    let panics = executor.panics();
    let mut run = RunStats::new(conns);
    executor.report_to(&mut run, epoch);
    run.figure("tasks_spawned", stats.spawned);
    run.figure("peak_tasks", stats.peak_tasks);
    run.figure("polls", stats.polls);
    run.figure("idle_polls", stats.idle_polls);
    run.figure("wakes", stats.wakes);
    run.figure("wakes_coalesced", stats.wakes_coalesced);
    run.figure("epoll_waits", stats.waits);
    run.figure("interrupts", stats.interrupts);
    run.figure("timers_fired", stats.timers_fired);
    run.figure("task_panics", stats.panics);
    run.figure("request_future_bytes", sizes.request);
    run.figure("task_future_bytes", sizes.task);
    run.figure("fiber_stack_bytes_06", scheduler::DEFAULT_STACK_SIZE);
    if let Some(mib) = peak_rss_mib() {
        run.figure("peak_rss_mib", mib);
    }
    for panic in panics.iter().take(PANICS_LISTED) {
        run.note(panic.to_string());
    }
    run
}
