//! Runs one stage end to end: server, database, run, verification, report.
//!
//! Every stage binary's `main` is three lines: parse its arguments, build the
//! stage, call [`main`]. Tests and the bench call [`execute`] and get the
//! [`Report`] back instead of printed output. Both go through the same steps:
//!
//! 1. check the settings make sense for this stage, and lock `--db`
//!    (`harness/preflight.rs`: a `hang` fault with no read timeout would
//!    wait forever, more connections than descriptors would hang, a second
//!    run on one database would mix their results);
//! 2. start the embedded slow server: threads in this process, or its own
//!    process when the stage forks (a forking process must stay
//!    single-threaded), or none with `--server` (`harness/embedded.rs`);
//! 3. create the results database (in memory, or a file);
//! 4. run the stage, timing it, with the stall watchdog watching (a stage
//!    in this process: [`crate::watchdog`]) and, in a binary, SIGINT and
//!    SIGTERM turned into an account of what was recorded
//!    ([`crate::interrupt`]);
//! 5. stop the server and read its statistics (the *applied* service time
//!    for Little's law, the peak of connections), or learn that it died;
//! 6. verify the database and build the report.

mod embedded;
mod preflight;

use std::io;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use nix::sys::signal::Signal;

use crate::cli::{Settings, print, usage_error};
use crate::duration::format_duration;
use crate::interrupt::{RunRecord, Signals, exit_status};
use crate::progress::Progress;
use crate::report::{Report, RunFacts};
use crate::server::{ServedLine, ServerConfig, ServerStats};
use crate::stage::{Scenario, Stage, StageError};
use crate::store::{DbTarget, Row, Store, StoreError};
use crate::timeline::{self, Timeline};
use crate::turns::LoopTurns;
use crate::watchdog::{Monitor, Watch};
use crate::workload;

use embedded::{EmbeddedServer, ServerEnd};
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
}

impl Execution {
    /// Draws the run as an SVG timeline at `path`; `command`, if given, is
    /// printed under the picture so a reader can make it again. The path's
    /// ending chooses the format ([`timeline::render_for`]): `.html` an
    /// interactive page, `.trace.json` Chrome's trace format, `.json` the
    /// timeline's data for `stack-timelines`.
    pub fn write_timeline(&self, path: &Path, command: Option<&str>) -> io::Result<()> {
        let timeline = Timeline::new(&self.report, &self.rows, &self.served, self.epoch)
            .with_turns(self.turns.clone());
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
            // `print!` panics when stdout is a pipe the reader closed
            // (`01-sync | head`); the run's verdict stands all the same.
            let mut printed = print(&text);
            if let Some(path) = &settings.timeline {
                let command = settings.caption.clone().unwrap_or_else(command_line);
                if let Err(e) = execution.write_timeline(path, Some(&command)) {
                    eprintln!(
                        "error: could not write the timeline {}: {e}",
                        path.display()
                    );
                    return ExitCode::FAILURE;
                }
                if !settings.json && printed.is_ok() {
                    printed = print(&format!("  timeline     {}\n", path.display()));
                }
            }
            match printed {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                    eprintln!("error: could not print the report: {e}");
                    ExitCode::FAILURE
                }
                _ => verdict,
            }
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
fn execute_with(
    stage: &dyn Stage,
    settings: &Settings,
    signals: Option<Arc<Signals>>,
) -> Result<Execution, HarnessError> {
    // Declared first so that it is dropped last: the lock's descriptor
    // must outlive every SQLite connection this process has to the file
    // (see `store/lock.rs`).
    let preflight = preflight::check(stage, settings)?;

    let config = ServerConfig {
        latency: settings.latency,
        faults: settings.faults.with_outage(settings.outage),
        seed: settings.seed,
        max_conns: None,
    };
    // The outage window counts from the server's start; the timeline draws
    // it from the run's epoch, a few milliseconds later.
    let server_started = Instant::now();
    let server = EmbeddedServer::start(stage, settings, config)?;
    if settings.timeline.is_some() {
        server.record_served_lines();
    }

    // A stage that records from several connections needs a file; without
    // `--db` it gets a temporary one, removed when `_scratch` drops.
    let mut _scratch = None;
    let target = match &settings.db {
        Some(path) => DbTarget::File(path.clone()),
        None if stage.needs_db_file() => {
            let dir = tempfile::tempdir().map_err(HarnessError::Scratch)?;
            let target = DbTarget::File(dir.path().join("results.db"));
            _scratch = Some(dir);
            target
        }
        None => DbTarget::memory(),
    };
    let creator = Store::create(&target, Instant::now())?;
    let mut notes = preflight.notes;
    if let (Some(previous), Some(path)) = (creator.replaced(), target.path()) {
        notes.push(format!(
            "{} held the results of {previous}: this run replaced them",
            path.display()
        ));
    }
    // An in-memory database lives while a connection is open, so keep this
    // one. A file does not need it, and a forking stage must not carry an
    // open SQLite connection across fork(): close it.
    let keeper = match target {
        DbTarget::Memory(_) => Some(creator),
        // Explicitly: a value that is not moved lives to the end of its
        // scope, and this one would be open across every fork of the run.
        DbTarget::File(_) => {
            drop(creator);
            None
        }
    };

    let progress = if settings.json || stage.forks() {
        Progress::hidden()
    } else {
        Progress::for_terminal(stage.name(), settings.items as u64)
    };
    let scenario = Scenario {
        items: workload::items(settings.items, settings.seed),
        conns: settings.conns,
        phases: settings.phases,
        server: server.addr(),
        read_timeout: preflight.read_timeout,
        connect_timeout: settings.connect_timeout,
        db: target.clone(),
        epoch: Instant::now(),
        progress: progress.clone(),
        stall_after: settings.stall_after,
    };
    let record = RunRecord {
        stage: stage.name(),
        settings: settings.clone(),
        target: target.clone(),
        epoch: scenario.epoch,
        scratch: _scratch.as_ref().map(|dir| dir.path().to_owned()),
        progress: progress.clone(),
    };
    // A forking stage stays single-threaded: it watches, and takes the
    // signals, itself.
    let mut monitor = if stage.forks() {
        None
    } else {
        let watch = Watch {
            stage: stage.name(),
            items: settings.items as u64,
            server: server.addr(),
            read_timeout: preflight.read_timeout,
            read_timeout_support: stage.read_timeout(),
            progress: progress.clone(),
            stall_after: settings.stall_after,
        };
        let interrupt = signals.clone().map(|signals| (signals, record.clone()));
        // Without its thread the run is only unwatched, not wrong.
        Monitor::start(watch, interrupt).ok()
    };
    let outcome = stage.run(&scenario);
    let elapsed = scenario.epoch.elapsed();
    if let Some(monitor) = &mut monitor {
        monitor.stop();
    }
    progress.finish();
    let served = server.served_lines();
    // A forking stage that saw SIGINT or SIGTERM stopped its children and
    // left the signal pending for this.
    if let Some(signal) = signals.as_ref().and_then(|signals| signals.take()) {
        drop(server.finish());
        let account = record.interrupted(signal);
        return Err(HarnessError::Interrupted { signal, account });
    }
    let (server_stats, server_died) = match server.finish() {
        ServerEnd::Stopped(stats) => (Some(stats), None),
        ServerEnd::Died(how) => (None, Some(how)),
        ServerEnd::External => (None, None),
    };
    let stats = outcome?;

    let mut reader = match keeper {
        Some(store) => store,
        None => Store::open(&target, scenario.epoch)?,
    };
    if let Some(turns) = stats.turns() {
        reader.record_turns(turns)?;
    }
    let turns = reader.turns()?;
    let rows = reader.rows()?;
    notes.extend(stats.notes().iter().cloned());
    if let Some(server_stats) = &server_stats {
        notes.extend(server_notes(server_stats, &config));
    }
    let mean_service = server_stats
        .as_ref()
        .and_then(ServerStats::mean_service_time)
        .unwrap_or_else(|| settings.latency.mean());
    // With a dead server the faults it injected are not known: it may have
    // died before injecting them.
    let known = server_stats.is_some();
    let facts = RunFacts {
        concurrency: stats.concurrency(),
        elapsed,
        mean_service,
        served_lines: server_stats.as_ref().map(|s| s.service.count),
        faults: known.then_some((config.faults, settings.seed)),
        server_peak_conns: server_stats.as_ref().map(|s| s.peak_conns),
        server_accepted: server_stats.as_ref().map(|s| s.accepted),
        db_connections: reader.db_connections()?,
        notes,
        stage_stats: stats
            .figures()
            .iter()
            .map(|(key, value)| ((*key).to_owned(), value.clone()))
            .collect(),
        external_server: settings.server.is_some(),
        server_died,
        outage: config.faults.outage().map(|outage| {
            let lead = scenario.epoch.saturating_duration_since(server_started);
            (
                outage.start.saturating_sub(lead),
                outage.end().saturating_sub(lead),
            )
        }),
        ..RunFacts::new(stage.name(), settings.phases)
    };
    let report = Report::build(&scenario.items, &rows, facts);
    // Kept so that the `report` binary can reread the run, page and all.
    timeline::keep(&mut reader, &report, &served, scenario.epoch)?;
    drop(reader);
    drop(preflight.lock);
    Ok(Execution {
        report,
        rows,
        served,
        epoch: scenario.epoch,
        turns,
    })
}

/// What the embedded server's statistics tell a reader of the report that
/// the rows do not: it ran out of descriptors, it went through an outage.
fn server_notes(stats: &ServerStats, config: &ServerConfig) -> Vec<String> {
    let mut notes = Vec::new();
    if stats.out_of_descriptors > 0 {
        notes.push(format!(
            "the embedded server ran out of descriptors and turned {} connections away with \
             `503 out of descriptors`: fewer --conns, or slow-server in its own process \
             (--server)",
            stats.out_of_descriptors
        ));
    }
    if let Some(outage) = config.faults.outage() {
        notes.push(format!(
            "the server was down from {} to {} after it started (--outage {outage}): it \
             refused connects and reset {} open connections",
            format_duration(outage.start),
            format_duration(outage.end()),
            stats.reset_by_outage
        ));
    }
    notes
}
