//! The stage contract: one entry point that every rung of the ladder
//! implements, so the binaries, the cross-stage tests and the bench drive all
//! of them the same way.
//!
//! A stage receives a [`Scenario`] (the work, the server's address, how much
//! concurrency it may use, where to store outcomes) and must leave exactly
//! one outcome per item in the database. Everything else (starting the
//! server, creating the database, verifying it, printing the report) is the
//! harness's job ([`crate::harness`]), so a stage's code is only its lesson.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::progress::Progress;
use crate::protocol::Phases;
use crate::store::{DbTarget, Store, StoreError};
use crate::tasks::TaskTrace;
use crate::turns::LoopTurns;
use crate::workload::Item;

/// Everything a stage needs to do a run.
///
/// The harness builds it from the command line; a test builds one with
/// [`Scenario::new`] and sets the fields it cares about. It is
/// `#[non_exhaustive]` so that a new fact does not break every test that
/// builds one.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Scenario {
    /// The work, in list order.
    pub items: Vec<Item>,
    /// How many requests the stage may have in flight (`--conns`): tasks,
    /// wrappers, pool size or fiber limit, depending on the stage.
    pub conns: usize,
    /// Single-phase `GET` or two-phase `HEAD`/`BODY`.
    pub phases: Phases,
    /// Where the slow server listens.
    pub server: SocketAddr,
    /// How long to wait for a reply before failing the item with `timeout`
    /// (`--read-timeout`); `None` waits forever.
    pub read_timeout: Option<Duration>,
    /// How long a connect may take before it fails with `timeout`
    /// (`--connect-timeout`): every stage bounds its handshakes with it.
    pub connect_timeout: Duration,
    /// Where outcomes go.
    pub db: DbTarget,
    /// The run's time origin: stored times are µs since this instant.
    pub epoch: Instant,
    /// Ticked once per recorded outcome (draws only on a terminal).
    pub progress: Progress,
    /// How long the run may record nothing before the stall watchdog
    /// speaks ([`crate::watchdog`]); a stage that watches itself (02-fork's
    /// parent) uses it.
    pub stall_after: Duration,
    /// Keep a log of every task's polls and wakes ([`crate::tasks`]) for
    /// the run's page: set when `--timeline` asks for one. An executor
    /// that keeps none pays nothing for it.
    pub record_tasks: bool,
}

/// The connect timeout when no `--connect-timeout` is given (the flag's
/// default too): long enough for a SYN retried twice on a lossy network
/// (1 s, then 2 s more), short enough that a server that drops SYNs costs
/// seconds, not minutes.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a run may record nothing before the stall watchdog speaks
/// ([`Scenario::stall_after`]'s default): far longer than any service time
/// a run simulates on purpose, short enough that a person still waiting
/// for output has not given up yet.
pub const STALL: Duration = Duration::from_secs(10);

impl Scenario {
    /// A scenario for `items` against the server at `server`, recording
    /// into `db`: one connection, two phases, no read timeout, the default
    /// connect timeout, no progress bar, time counted from now.
    pub fn new(items: Vec<Item>, server: SocketAddr, db: DbTarget) -> Scenario {
        Scenario {
            items,
            conns: 1,
            phases: Phases::Two,
            server,
            read_timeout: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            db,
            epoch: Instant::now(),
            progress: Progress::hidden(),
            stall_after: STALL,
            record_tasks: false,
        }
    }

    /// Opens a database connection for recording, wired to the progress
    /// bar: the source articles' `openDB()`.
    pub fn open_store(&self) -> Result<Store, StoreError> {
        Ok(Store::open(&self.db, self.epoch)?.with_progress(self.progress.clone()))
    }
}

/// What a stage reports besides the database: its real concurrency, notes
/// for the reader, and figures of its own.
///
/// Built with [`RunStats::new`] and the two adders, so that a new kind of
/// fact does not break every stage:
///
/// ```
/// use testbed::stage::RunStats;
///
/// let mut stats = RunStats::new(20);
/// stats.figure("backend", "epoll");
/// stats.figure("waits", 118);
/// stats.note("3 connections broke and were reopened");
/// assert_eq!(stats.concurrency(), 20);
/// ```
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    concurrency: usize,
    notes: Vec<String>,
    lints: Vec<String>,
    figures: BTreeMap<&'static str, serde_json::Value>,
    turns: Option<LoopTurns>,
    tasks: Option<TaskTrace>,
}

impl RunStats {
    /// The stats of a run that could have `concurrency` requests in flight
    /// at once (01-sync: 1); the report's Little's-law ideal uses it.
    pub fn new(concurrency: usize) -> RunStats {
        RunStats {
            concurrency,
            ..RunStats::default()
        }
    }

    /// Adds a note a reader of the report should see: a worker that died,
    /// checkouts that gave up...
    pub fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// Adds a warning about the stage's own loop, kept apart from the notes:
    /// a poll that held the thread, a task that wakes itself forever, a
    /// task nothing can wake. The report prints each as `warning: ...`
    /// after the notes, and its JSON lists them under `lints`.
    ///
    /// ```
    /// use testbed::stage::RunStats;
    ///
    /// let mut stats = RunStats::new(4);
    /// stats.lint("one poll of task 7 took 212 ms");
    /// assert_eq!(stats.lints(), ["one poll of task 7 took 212 ms"]);
    /// assert!(stats.notes().is_empty());
    /// ```
    pub fn lint(&mut self, lint: impl Into<String>) {
        self.lints.push(lint.into());
    }

    /// The warnings, in the order they were added.
    pub fn lints(&self) -> &[String] {
        &self.lints
    }

    /// Sets one of the stage's own figures (backend name, pool counters...),
    /// shown in the report and in its JSON under `stage_stats.KEY`. Keys
    /// are names in code, never made at run time, so the JSON's keys are
    /// the same from run to run.
    pub fn figure(&mut self, key: &'static str, value: impl Into<serde_json::Value>) {
        self.figures.insert(key, value.into());
    }

    /// Hands over the event loop's recorded turns ([`crate::turns`]), for
    /// the harness to store beside the outcomes. A stage without a loop
    /// never calls it, and its page says it has none.
    pub fn loop_turns(&mut self, turns: LoopTurns) {
        self.turns = Some(turns);
    }

    /// The loop's turns, if the stage has a loop.
    pub fn turns(&self) -> Option<&LoopTurns> {
        self.turns.as_ref()
    }

    /// Hands over the executor's recorded tasks ([`crate::tasks`]), kept
    /// when [`Scenario::record_tasks`] asked for them.
    pub fn task_trace(&mut self, tasks: TaskTrace) {
        self.tasks = Some(tasks);
    }

    /// The recorded tasks, if the stage kept them.
    pub fn tasks(&self) -> Option<&TaskTrace> {
        self.tasks.as_ref()
    }

    /// How many requests could really be in flight at once.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// The notes, in the order they were added.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The stage's figures, by key.
    pub fn figures(&self) -> &BTreeMap<&'static str, serde_json::Value> {
        &self.figures
    }
}

/// Why a run could not finish.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// The results database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A system call failed in a way the stage cannot recover from.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The stage cannot run this scenario, and says why (for example,
    /// `select(2)` and a descriptor at or above `FD_SETSIZE`).
    #[error("{0}")]
    Unsupported(String),
}

/// Whether a stage can fail a request whose reply does not come in time
/// (`--read-timeout`), in the stage's own words when it cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadTimeoutSupport {
    /// It can: a reply later than `--read-timeout` fails its item with
    /// `timeout`.
    Enforced,
    /// It cannot; the text says why and where to find one, and completes
    /// "NAME has no read timeout: ..." in the harness's messages.
    Missing(&'static str),
}

impl ReadTimeoutSupport {
    /// The stage enforces a read timeout.
    pub fn is_enforced(self) -> bool {
        self == ReadTimeoutSupport::Enforced
    }
}

/// One rung of the ladder.
pub trait Stage {
    /// The package name (`sync`, `fork`, `select`...), used in reports.
    fn name(&self) -> &'static str;

    /// Does the stage record through several database connections at once
    /// (so it needs a file, which the harness provides when `--db` is not
    /// given)?
    fn needs_db_file(&self) -> bool {
        false
    }

    /// Does the stage `fork()`? The harness then keeps the process
    /// single-threaded: the embedded server runs in its own process and no
    /// database connection is open while the stage runs.
    fn forks(&self) -> bool {
        false
    }

    /// Can the stage enforce `--read-timeout`? The stage says, and when it
    /// cannot, says why and what to use instead: the harness prints those
    /// words, so the harness itself never names a rung.
    fn read_timeout(&self) -> ReadTimeoutSupport {
        ReadTimeoutSupport::Enforced
    }

    /// Can the stage run on this machine at all? `Err` says why not, how
    /// to check, and what to run instead (08-uring where io_uring is
    /// forbidden); the harness prints it before anything starts and exits
    /// with status 2. Most stages need nothing special: yes.
    fn available(&self) -> Result<(), String> {
        Ok(())
    }

    /// How many connections the stage holds open at once when given
    /// `--conns` (01-sync: always one). The harness checks the descriptors
    /// they take against `RLIMIT_NOFILE` before the run.
    fn connections(&self, conns: usize) -> usize {
        conns
    }

    /// How many descriptors this process holds per connection: the socket,
    /// and for a stage that gives each worker a database connection of its
    /// own, that connection's files. A stage whose workers are processes
    /// holds none of them here: each child has a limit of its own.
    fn descriptors_per_conn(&self) -> u64 {
        1
    }

    /// Processes every item of the scenario, recording each outcome once.
    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError>;
}
