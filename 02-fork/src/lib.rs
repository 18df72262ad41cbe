//! Stage 2: fork. Deal the list out to N workers, one process each.
//!
//! Stage 1 waits: with a service time of `L`, one blocking connection does
//! at most `1 / 2L` two-phase items per second, and the machine sits idle.
//! The oldest answer is to run several copies of that program at once. The
//! source article's "più task" version does it with Unix processes:
//!
//! 1. deal the list round-robin into N partitions ([`partition`]);
//! 2. `fork` N children; each opens its own connection and its own database
//!    connection and runs stage 1's request over its partition
//!    ([`worker::work`], [`processes`]);
//! 3. `waitpid` for every child, and report any that did not finish, with
//!    the items it left without an outcome ([`unfinished`]); stop them all
//!    if this process is told to stop, and say so if they go quiet
//!    ([`supervise`]); and make sure none outlives this process.
//!
//! Throughput grows N-fold, and so does the bill: N TCP connections is what
//! we wanted, but also N *database* connections (`db_connections` in the
//! report), and the source article's premise is a database that allows few, maybe
//! one. That cost is what every later stage removes.
//!
//! `--threads` runs the same partitions as a rayon fork-join over threads
//! ([`threads`]): what a Rust programmer would do instead of `fork()`, with
//! the same database bill.
//!
//! # Layout
//!
//! Read [`partition`], then [`worker`] (the source article's `work()`), then
//! [`processes`] (fork, `_exit`, `waitpid`, and the fork-safety rules),
//! [`supervise`] (the parent while they run), then [`threads`] for
//! comparison. [`crash`] and [`unfinished`] are how a dead
//! child is made on purpose and how its items are found.
//!
//! The only `unsafe` in this crate is the `fork` call and the child's
//! `_exit`, in [`processes`].
//!
//! # Examples
//!
//! Dealing ten items to three workers, as the parent does before it forks:
//! every item in exactly one partition, sizes within one of each other,
//! list order kept.
//!
//! ```
//! use fork::partition;
//!
//! let hands = partition(0..10, 3);
//! assert_eq!(hands, [vec![0, 3, 6, 9], vec![1, 4, 7], vec![2, 5, 8]]);
//! ```

#![deny(unsafe_code)]

pub mod crash;
#[allow(unsafe_code)]
pub mod processes;
pub mod supervise;
pub mod threads;
pub mod unfinished;
pub mod worker;

mod partition;

pub use crash::CrashPlan;
pub use partition::partition;
pub use worker::WorkerId;

use testbed::stage::{RunStats, Scenario, Stage, StageError};

/// How the workers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workers {
    /// One forked child process per partition (the default).
    Processes {
        /// Make one child die on purpose (`--crash-worker`).
        crash: Option<CrashPlan>,
    },
    /// One rayon thread per partition (`--threads`).
    Threads,
}

/// The fork stage: N workers, each with its own connection and its own
/// database connection.
///
/// One value per variant, because the harness must treat them differently:
/// the process variant [`forks`](Stage::forks), so the harness keeps this
/// process single-threaded (the embedded server in a process of its own);
/// the thread variant does not, and gets the usual threaded embedded server.
///
/// # Examples
///
/// Both variants as the binary runs them: four workers, four connections,
/// and four database connections, the bill this stage runs up.
///
/// ```
/// use fork::Forked;
/// use testbed::cli::Settings;
/// use testbed::harness::execute;
///
/// let settings = Settings {
///     items: 20,
///     conns: 4,
///     latency: "1ms".parse().expect("a latency"),
///     ..Settings::default()
/// };
/// for stage in [Forked::processes(), Forked::threads()] {
///     let report = execute(&stage, &settings)?.report;
///     assert_eq!((report.ok, report.lost, report.wrong), (20, 0, 0));
///     assert_eq!(report.db_connections, 4);
/// }
/// # Ok::<(), testbed::harness::HarnessError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Forked {
    /// Processes or threads.
    pub workers: Workers,
}

impl Forked {
    /// Worker processes, none of which crashes.
    pub fn processes() -> Forked {
        Forked {
            workers: Workers::Processes { crash: None },
        }
    }

    /// Worker threads.
    pub fn threads() -> Forked {
        Forked {
            workers: Workers::Threads,
        }
    }
}

impl Stage for Forked {
    fn name(&self) -> &'static str {
        "fork"
    }

    /// N workers record through N database connections at once: an
    /// in-memory database cannot be shared between processes, so the
    /// harness provides a temporary file when `--db` is not given.
    fn needs_db_file(&self) -> bool {
        true
    }

    fn forks(&self) -> bool {
        matches!(self.workers, Workers::Processes { .. })
    }

    /// Processes: each child has its own connection and its own limit, so
    /// the parent holds none. Threads: each worker holds its socket and a
    /// SQLite connection to a file (the file, its write-ahead log and its
    /// shared memory), all in this process.
    fn descriptors_per_conn(&self) -> u64 {
        match self.workers {
            Workers::Processes { .. } => 0,
            Workers::Threads => 4,
        }
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        // More workers than items would only add idle processes (and
        // database connections that record nothing).
        let workers = scenario.conns.min(scenario.items.len());
        if workers == 0 {
            return Ok(RunStats::new(0));
        }
        match self.workers {
            Workers::Processes { crash } => processes::run(scenario, workers, crash),
            Workers::Threads => threads::run(scenario, workers),
        }
    }
}
