//! Runs one stage end to end: server, database, run, verification, report.
//!
//! Every stage binary's `main` is three lines: parse its arguments, build the
//! stage, call [`main`]. Tests and the bench call [`execute`] and get the
//! [`Report`] back instead of printed output. Both go through the same
//! steps, each a function named for it (`execute_with` reads as this list):
//!
//! 1. **preflight**: check the settings make sense for this stage, and
//!    lock `--db` (`harness/preflight.rs`: a `hang` fault with no read
//!    timeout would wait forever, more connections than descriptors would
//!    hang, a second run on one database would mix their results);
//! 2. **server**: start the embedded slow server: threads in this
//!    process, or its own process when the stage forks (a forking process
//!    must stay single-threaded), or none with `--server`
//!    (`harness/embedded.rs`);
//! 3. **database**: create the results database, in memory or a file
//!    (`harness/database.rs`);
//! 4. **progress**: the live view with `--watch` ([`crate::watch`]), a
//!    bar on a terminal, or nothing;
//! 5. **watchdog**: in a stage that runs in this process, a thread that
//!    says what a silent run waits on ([`crate::watchdog`]) and, in a
//!    binary, turns SIGINT and SIGTERM into an account of what was
//!    recorded ([`crate::interrupt`]);
//! 6. **run**: the stage, timed;
//! 7. **report**: stop the server and read its statistics (the *applied*
//!    service time for Little's law, the peak of connections), or learn
//!    that it died or, external, went away; verify the database and build
//!    the report (`harness/verdict.rs`);
//! 8. **timeline**: in a binary, after printing the report, the picture
//!    of the run ([`Execution::write_timeline`]).

mod database;
mod embedded;
mod preflight;
mod verdict;

use std::io;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use crate::cli::{Printed, Settings, print_or_report, usage_error};
use crate::interrupt::{RunRecord, Signals, exit_status};
use crate::progress::Progress;
use crate::report::Report;
use crate::server::{ServedLine, ServerConfig};
use crate::stage::{RunStats, Scenario, Stage, StageError};
use crate::store::{Row, StoreError};
use crate::tasks::TaskTrace;
use crate::timeline::{self, Timeline};
use crate::turns::LoopTurns;
use crate::watchdog::{Monitor, Watch};
use crate::workload;

use database::Results;
use embedded::EmbeddedServer;
pub use preflight::DEFAULT_EXTERNAL_READ_TIMEOUT;

/// Why a run produced no report.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The settings cannot work for this stage; exit status 2.
    #[error("{0}")]
    Usage(String),
    /// The embedded server could not start.
    #[error("could not start the embedded slow server: {0}")]
    Server(io::Error),
    /// The results database failed outside the stage.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stage could not finish.
    #[error("the run could not finish: {0}")]
    Stage(#[from] StageError),
    /// No temporary file could be made for the results database.
    #[error("could not create a temporary results database: {0}")]
    Scratch(io::Error),
    /// SIGINT or SIGTERM stopped the run; `account` says what it recorded.
    #[error("interrupted by {signal}")]
    Interrupted {
        /// The signal.
        signal: Signal,
        /// What was recorded, and the report of it.
        account: String,
    },
}

/// A finished run: its report, and the rows it was built from.
#[derive(Debug)]
pub struct Execution {
    /// The verified report.
    pub report: Report,
    /// Every stored outcome (for timelines and tests).
    pub rows: Vec<Row>,
    /// When the embedded server served each request line, if it was asked
    /// to log them (it is for `--timeline`; a forked or external server
    /// keeps no log).
    pub served: Vec<ServedLine>,
    /// The instant the rows' and the picture's µs count from.
    pub epoch: Instant,
    /// The event loop's turns, as stored (`None`: the stage has no loop).
    pub turns: Option<LoopTurns>,
    /// The executor's tasks, as stored (`None`: none were recorded).
    pub tasks: Option<TaskTrace>,
}

impl Execution {
    /// Draws the run as an SVG timeline at `path`; `command`, if given, is
    /// printed under the picture so a reader can make it again. The path's
    /// ending chooses the format ([`timeline::render_for`]): `.html` an
    /// interactive page, `.trace.json` Chrome's trace format, `.json` the
    /// timeline's data for `stack-timelines`.
    pub fn write_timeline(&self, path: &Path, command: Option<&str>) -> io::Result<()> {
        let timeline = Timeline::new(&self.report, &self.rows, &self.served, self.epoch)
            .with_turns(self.turns.clone())
            .with_tasks(self.tasks.clone());
        std::fs::write(path, timeline::render_for(path, &timeline, command))
    }
}

/// The whole binary: runs the stage, prints the report (a table, or one
/// JSON object with `--json`), writes the timeline if asked, and returns
/// the exit status: 0 when nothing was lost or wrong, 1 when something was
/// or the run could not finish, 2 for settings that cannot work, 128 plus
/// the signal's number for a run stopped by SIGINT or SIGTERM (after an
/// account of what it recorded, on stderr).
///
/// Call it before the program starts any thread: it blocks SIGINT and
/// SIGTERM for every thread to come.
pub fn main(stage: &dyn Stage, settings: &Settings) -> ExitCode {
    // Without the block the signals keep their default action: the run
    // still ends, only silently.
    let signals = Signals::block().ok().map(Arc::new);
    match execute_with(stage, settings, signals) {
        Ok(execution) => {
            let report = &execution.report;
            let verdict = if report.is_sound() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
            let text = if settings.json {
                format!("{}\n", report.to_json())
            } else {
                report.to_string()
            };
            // Piped into `head`, the rest of the report is not wanted; the
            // run's verdict stands all the same.
            let printed = match print_or_report(&text) {
                Ok(printed) => printed,
                Err(status) => return status,
            };
            if let Some(path) = &settings.timeline {
                let command = settings.caption.clone().unwrap_or_else(command_line);
                if let Err(e) = execution.write_timeline(path, Some(&command)) {
                    eprintln!(
                        "error: could not write the timeline {}: {e}",
                        path.display()
                    );
                    return ExitCode::FAILURE;
                }
                let line = format!("  timeline     {}\n", path.display());
                if !settings.json
                    && printed == Printed::Written
                    && let Err(status) = print_or_report(&line)
                {
                    return status;
                }
            }
            verdict
        }
        Err(HarnessError::Usage(message)) => usage_error(&message),
        Err(HarnessError::Interrupted { signal, account }) => {
            eprint!("{account}");
            ExitCode::from(exit_status(signal))
        }
        Err(error) => {
            eprintln!("error: {}: {error}", stage.name());
            ExitCode::FAILURE
        }
    }
}

/// This process's command line as a reader would type it: the program's
/// name without its `target/release/` path, then the arguments.
fn command_line() -> String {
    let mut args = std::env::args();
    let program = args.next().unwrap_or_default();
    let name = Path::new(&program)
        .file_name()
        .map_or(program.clone(), |n| n.to_string_lossy().into_owned());
    std::iter::once(name)
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the stage and returns its verified report, printing nothing but
/// the watchdog's lines about a stalled run.
pub fn execute(stage: &dyn Stage, settings: &Settings) -> Result<Execution, HarnessError> {
    execute_with(stage, settings, None)
}

/// [`execute`], taking SIGINT and SIGTERM from `signals` when given.
///
/// The run, step by step, as the module's list describes it; each step is
/// a function below (or in `harness/`) named for what it does.
fn execute_with(
    stage: &dyn Stage,
    settings: &Settings,
    signals: Option<Arc<Signals>>,
) -> Result<Execution, HarnessError> {
    // Declared first so that it is dropped last: the lock's descriptor
    // must outlive every SQLite connection this process has to the file
    // (see `store/lock.rs`).
    let preflight = preflight::check(stage, settings)?;
    let server = Server::start(stage, settings)?;
    let results = Results::create(stage, settings)?;
    let progress = progress_for(stage, settings, &server.embedded);
    let scenario = Scenario {
        items: workload::items(settings.items, settings.seed),
        conns: settings.conns,
        phases: settings.phases,
        server: server.embedded.addr(),
        read_timeout: preflight.read_timeout,
        connect_timeout: settings.connect_timeout,
        db: results.target.clone(),
        epoch: Instant::now(),
        progress: progress.clone(),
        stall_after: settings.stall_after,
        // A page, a trace or a timeline's data can show the tasks; an SVG
        // cannot.
        record_tasks: settings.timeline.as_ref().is_some_and(|path| {
            let name = path.to_string_lossy();
            name.ends_with(".html") || name.ends_with(".json")
        }),
    };
    let record = RunRecord {
        stage: stage.name(),
        settings: settings.clone(),
        concurrency: stage.connections(settings.conns).min(settings.items),
        target: results.target.clone(),
        epoch: scenario.epoch,
        scratch: results.scratch_dir(),
        progress: progress.clone(),
    };
    let monitor = watch(stage, settings, &scenario, &record, signals.clone());
    let ran = run(stage, &scenario, monitor);
    let served = server.embedded.served_lines();
    // A forking stage that saw SIGINT or SIGTERM stopped its children and
    // left the signal pending for this.
    if let Some(signal) = signals.as_ref().and_then(|signals| signals.take()) {
        drop(server.embedded.finish());
        let account = record.interrupted(signal);
        return Err(HarnessError::Interrupted { signal, account });
    }
    let server_end = server.embedded.finish();
    let stats = ran.outcome?;

    let mut notes = preflight.notes;
    notes.extend(results.notes.iter().cloned());
    let (mut reader, rows) = results.read(scenario.epoch)?;
    if let Some(turns) = stats.turns() {
        reader.store.record_turns(turns)?;
    }
    let turns = reader.store.turns()?;
    let tasks = stats.tasks().cloned();
    if let Some(tasks) = &tasks {
        reader.store.record_tasks(tasks)?;
    }
    let report = verdict::report(verdict::Run {
        stage,
        settings,
        scenario: &scenario,
        stats,
        elapsed: ran.elapsed,
        server_end,
        config: &server.config,
        server_started: server.started,
        notes,
        rows: &rows,
        db_connections: reader.store.db_connections()?,
    });
    // Kept so that the `report` binary can reread the run, page and all.
    timeline::keep(&mut reader.store, &report, &served, scenario.epoch)?;
    drop(reader);
    drop(preflight.lock);
    Ok(Execution {
        report,
        rows,
        served,
        epoch: scenario.epoch,
        turns,
        tasks,
    })
}

/// The server a run talks to, with what the report needs to know of its
/// start.
struct Server {
    embedded: EmbeddedServer,
    /// What an embedded server was told to do (its faults make the
    /// expected outcomes).
    config: ServerConfig,
    /// The outage window counts from the server's start; the timeline
    /// draws it from the run's epoch, a few milliseconds later.
    started: Instant,
}

impl Server {
    /// Starts the embedded server (threads, or a process of its own for a
    /// stage that forks), or notes the external one.
    fn start(stage: &dyn Stage, settings: &Settings) -> Result<Server, HarnessError> {
        let config = ServerConfig {
            latency: settings.latency,
            faults: settings.faults.with_outage(settings.outage),
            seed: settings.seed,
            max_conns: None,
        };
        let started = Instant::now();
        let embedded = EmbeddedServer::start(stage, settings, config)?;
        if settings.timeline.is_some() {
            embedded.record_served_lines();
        }
        Ok(Server {
            embedded,
            config,
            started,
        })
    }
}

/// The live view with `--watch` (when it can show the run: see
/// [`crate::watch::wanted`]), the progress bar on a terminal, or nothing:
/// with `--json` stdout is for the report alone, and a forking stage's
/// children each count in a copy of it.
fn progress_for(stage: &dyn Stage, settings: &Settings, server: &EmbeddedServer) -> Progress {
    if crate::watch::wanted(stage, settings) {
        let progress = Progress::hidden();
        let feeds = crate::watch::Feeds::new(&progress, server.board())
            .wakes(Arc::new(crate::watch::LoopTap::start()));
        crate::watch::start(crate::watch::Setup::of(stage, settings), feeds);
        return progress;
    }
    if settings.json || stage.forks() {
        Progress::hidden()
    } else {
        Progress::for_terminal(stage.name(), settings.items as u64)
    }
}

/// Starts the watchdog (and the interrupt's collector) on its own thread.
/// A forking stage stays single-threaded: it watches, and takes the
/// signals, itself, so it gets none.
fn watch(
    stage: &dyn Stage,
    settings: &Settings,
    scenario: &Scenario,
    record: &RunRecord,
    signals: Option<Arc<Signals>>,
) -> Option<Monitor> {
    if stage.forks() {
        return None;
    }
    let watch = Watch {
        stage: stage.name(),
        items: settings.items as u64,
        server: scenario.server,
        read_timeout: scenario.read_timeout,
        read_timeout_support: stage.read_timeout(),
        progress: scenario.progress.clone(),
        stall_after: settings.stall_after,
        end_on_stall: settings.stall_ends,
    };
    let interrupt = signals.map(|signals| (signals, record.clone()));
    // Without its thread the run is only unwatched, not wrong.
    Monitor::start(watch, interrupt).ok()
}

/// What running the stage came to, and how long it took.
struct Ran {
    outcome: Result<RunStats, StageError>,
    elapsed: Duration,
}

/// Runs the stage, timed, then stops the watchdog and the progress bar.
fn run(stage: &dyn Stage, scenario: &Scenario, mut monitor: Option<Monitor>) -> Ran {
    let outcome = stage.run(scenario);
    let elapsed = scenario.epoch.elapsed();
    if let Some(monitor) = &mut monitor {
        monitor.stop();
    }
    scenario.progress.finish();
    Ran { outcome, elapsed }
}
