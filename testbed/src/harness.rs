//! Runs one stage end to end: server, database, run, verification, report.
//!
//! Every stage binary's `main` is three lines: parse its arguments, build the
//! stage, call [`main`]. Tests and the bench call [`execute`] and get the
//! [`Report`] back instead of printed output. Both go through the same steps:
//!
//! 1. check the settings make sense for this stage (a `hang` fault with no
//!    read timeout would wait forever, so it is refused up front);
//! 2. start the embedded slow server: threads in this process, or its own
//!    process when the stage forks (a forking process must stay
//!    single-threaded), or none with `--server`;
//! 3. create the results database (in memory, or a file);
//! 4. run the stage, timing it;
//! 5. stop the server and read its statistics (the *applied* service time
//!    for Little's law, the peak of connections);
//! 6. verify the database and build the report.

use std::io;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use crate::cli::{Settings, print, usage_error};
use crate::forked::ForkedServer;
use crate::limits::raise_fd_limit;
use crate::progress::Progress;
use crate::report::{Report, RunFacts};
use crate::server::{ServedLine, ServerConfig, ServerStats, SlowServer};
use crate::stage::{Scenario, Stage, StageError};
use crate::store::{DbTarget, Row, Store, StoreError};
use crate::timeline::{self, Timeline};
use crate::workload;

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
}

impl Execution {
    /// Draws the run as an SVG timeline at `path`; `command`, if given, is
    /// printed under the picture so a reader can make it again. A path that
    /// ends in `.json` gets the timeline's data instead, for
    /// `stack-timelines` to draw with other runs on one axis.
    pub fn write_timeline(&self, path: &Path, command: Option<&str>) -> io::Result<()> {
        let timeline = Timeline::new(&self.report, &self.rows, &self.served, self.epoch);
        let text = if path.extension().is_some_and(|e| e == "json") {
            timeline.to_json()
        } else {
            timeline::render_stack(std::slice::from_ref(&timeline), command)
        };
        std::fs::write(path, text)
    }
}

/// The whole binary: runs the stage, prints the report (a table, or one
/// JSON object with `--json`), writes the timeline if asked, and returns
/// the exit status: 0 when nothing was lost or wrong, 1 when something was
/// or the run could not finish, 2 for settings that cannot work.
pub fn main(stage: &dyn Stage, settings: &Settings) -> ExitCode {
    match execute(stage, settings) {
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

/// Runs the stage and returns its verified report, printing nothing.
pub fn execute(stage: &dyn Stage, settings: &Settings) -> Result<Execution, HarnessError> {
    check(stage, settings)?;
    // An embedded server and its client share one descriptor limit; the
    // soft limit (often 1,024) is far below what thousands of connections
    // need, and raising it to the hard limit needs no privilege.
    let _ = raise_fd_limit();

    let config = ServerConfig {
        latency: settings.latency,
        faults: settings.faults,
        seed: settings.seed,
        max_conns: None,
    };
    let mut server = EmbeddedServer::start(stage, settings, config)?;
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
        Progress::for_terminal(&stage.name(), settings.items as u64)
    };
    let scenario = Scenario {
        items: workload::items(settings.items, settings.seed),
        conns: settings.conns,
        phases: settings.phases,
        server: server.addr(),
        read_timeout: settings.read_timeout,
        connect_timeout: settings.connect_timeout,
        db: target.clone(),
        epoch: Instant::now(),
        progress: progress.clone(),
    };
    let outcome = stage.run(&scenario);
    let elapsed = scenario.epoch.elapsed();
    progress.finish();
    let served = server.served_lines();
    let server_stats = server.finish();
    let stats = outcome?;

    let reader = match keeper {
        Some(store) => store,
        None => Store::open(&target, scenario.epoch)?,
    };
    let rows = reader.rows()?;
    let mean_service = server_stats
        .as_ref()
        .and_then(ServerStats::mean_service_time)
        .unwrap_or_else(|| settings.latency.mean());
    let facts = RunFacts {
        stage: stage.name(),
        concurrency: stats.concurrency,
        phases: settings.phases,
        elapsed,
        mean_service,
        served_lines: server_stats.as_ref().map(|s| s.service.count),
        faults: server_stats
            .as_ref()
            .map(|_| (settings.faults, settings.seed)),
        server_peak_conns: server_stats.as_ref().map(|s| s.peak_conns),
        server_accepted: server_stats.as_ref().map(|s| s.accepted),
        db_connections: reader.db_connections()?,
        notes: stats.notes,
        stage_stats: stats.extra,
    };
    let report = Report::build(&scenario.items, &rows, facts);
    Ok(Execution {
        report,
        rows,
        served,
        epoch: scenario.epoch,
    })
}

/// Refuses settings that cannot work, before anything starts.
fn check(stage: &dyn Stage, settings: &Settings) -> Result<(), HarnessError> {
    let hangs = settings.faults.rate(crate::faults::Fault::Hang) > 0.0;
    if settings.read_timeout.is_some() && !stage.supports_read_timeout() {
        return Err(HarnessError::Usage(format!(
            "{} has no read timeout (adding one is what 05-pool is about); drop --read-timeout",
            stage.name()
        )));
    }
    if hangs && settings.read_timeout.is_none() {
        let hint = if stage.supports_read_timeout() {
            "add --read-timeout (e.g. 100ms)"
        } else {
            "this stage has no read timeout: try 05-pool"
        };
        return Err(HarnessError::Usage(format!(
            "--faults hang needs a read timeout, or a hung request waits forever: {hint}"
        )));
    }
    Ok(())
}

/// The server a run talks to, however it was started.
enum EmbeddedServer {
    Threads(SlowServer),
    Process(ForkedServer),
    External(std::net::SocketAddr),
}

impl EmbeddedServer {
    fn start(
        stage: &dyn Stage,
        settings: &Settings,
        config: ServerConfig,
    ) -> Result<EmbeddedServer, HarnessError> {
        Ok(match settings.server {
            Some(addr) => EmbeddedServer::External(addr),
            None if stage.forks() => {
                EmbeddedServer::Process(ForkedServer::start(config).map_err(HarnessError::Server)?)
            }
            None => {
                EmbeddedServer::Threads(SlowServer::spawn(config).map_err(HarnessError::Server)?)
            }
        })
    }

    fn addr(&self) -> std::net::SocketAddr {
        match self {
            EmbeddedServer::Threads(server) => server.addr(),
            EmbeddedServer::Process(server) => server.addr(),
            EmbeddedServer::External(addr) => *addr,
        }
    }

    /// Asks a server in this process to log when it sends each reply.
    fn record_served_lines(&self) {
        if let EmbeddedServer::Threads(server) = self {
            server.record_served_lines();
        }
    }

    /// What the server logged (empty unless it runs in this process).
    fn served_lines(&self) -> Vec<ServedLine> {
        match self {
            EmbeddedServer::Threads(server) => server.served_lines(),
            _ => Vec::new(),
        }
    }

    /// Stops an embedded server and returns its statistics.
    fn finish(&mut self) -> Option<ServerStats> {
        match std::mem::replace(self, EmbeddedServer::External(self.addr())) {
            EmbeddedServer::Threads(server) => Some(server.shutdown()),
            EmbeddedServer::Process(server) => server.finish().ok(),
            EmbeddedServer::External(_) => None,
        }
    }
}
