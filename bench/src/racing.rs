//! Running the race: one server per contender and workload, every round
//! through every contender, the median round kept.
//!
//! Not here: what a race is and what it found ([`crate::race`]), one run
//! of one contender ([`crate::run`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use testbed::duration::format_duration;
use testbed::server::{ServerConfig, ServiceStats};

use crate::contenders::Contender;
use crate::race::{Part, RoundFigures, Rounds, Row, Workloads, divide_by_floor};
use crate::run::{Lap, RunError, Runner};
use crate::servers::Servers;
use crate::syscalls;

/// Why a race stopped.
#[derive(Debug, thiserror::Error)]
pub enum RaceError {
    /// A run failed.
    #[error("{contender}, {part}: {error}")]
    Run {
        /// The contender.
        contender: String,
        /// The workload.
        part: &'static str,
        /// What went wrong.
        error: RunError,
    },
    /// The server forked for a run was missing or failed.
    #[error("{contender}, {part}: the slow server: {why}")]
    Server {
        /// The contender.
        contender: String,
        /// The workload.
        part: &'static str,
        /// What went wrong.
        why: String,
    },
}

/// The key of the server forked for one run.
fn server_key(contender: &Contender, part: Part) -> String {
    format!("{}/{}", contender.name, part.as_str())
}

/// The servers a race needs, one per contender and workload: fork them with
/// [`Servers::start`] before anything starts a thread.
pub fn plan(contenders: &[&Contender], workloads: &Workloads) -> Vec<(String, ServerConfig)> {
    contenders
        .iter()
        .flat_map(|c| {
            Part::ALL.map(|part| (server_key(c, part), part.of(workloads).server_config()))
        })
        .collect()
}

/// Where a race writes its pictures, and what they say made them.
#[derive(Debug, Clone)]
pub struct Output {
    /// The folder for each contender's timeline (`NAME.svg`).
    pub timelines: PathBuf,
    /// The race's command line, printed under each timeline.
    pub command: String,
}

/// Runs the race: `rounds` times every contender on both workloads, each
/// contender and workload on its own server from `servers`. Rounds run one
/// after the other, each through every contender, so a burst of load from
/// elsewhere on the machine spoils one round of several contenders rather
/// than every round of one. `progress` hears before and after each run.
pub fn run(
    contenders: &[&Contender],
    workloads: &Workloads,
    rounds: usize,
    servers: &mut Servers,
    runner: &Runner,
    output: &Output,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Vec<Row>, RaceError> {
    let rounds = rounds.max(1);
    let total = rounds * contenders.len() * Part::ALL.len();
    // laps[contender][part]: every round's lap, and its timeline if any.
    let mut laps: Vec<[Vec<Done>; 2]> = contenders
        .iter()
        .map(|_| [Vec::new(), Vec::new()])
        .collect();
    let mut index = 0;
    for round in 1..=rounds {
        for (contender, laps) in contenders.iter().zip(&mut laps) {
            for (part, laps) in Part::ALL.into_iter().zip(laps.iter_mut()) {
                index += 1;
                progress(Progress::Starting {
                    index,
                    total,
                    contender: contender.name,
                    part,
                });
                let done = run_one(contender, part, workloads, round, servers, runner, output)?;
                progress(Progress::Finished { lap: &done.0, part });
                laps.push(done);
            }
        }
    }
    // One more lap of each, its system calls counted by the kernel.
    let counter = syscalls::Counter::find().map_err(|why| eprintln!("note: {why}"));
    let mut rows = Vec::new();
    for (contender, [ladder, zero]) in contenders.iter().zip(laps) {
        let calls = counter.map_or([None, None], |c| {
            count_calls(c, contender, workloads, servers, runner)
        });
        let figures = |laps: &[Done]| laps.iter().map(|(lap, _)| RoundFigures::of(lap)).collect();
        let rounds = Rounds {
            latency_bound: figures(&ladder),
            overhead: figures(&zero),
        };
        let latency_bound = settle(contender, Part::LatencyBound, ladder, servers, output)?;
        rows.push(Row {
            kind: Some(contender.kind),
            latency_bound: latency_bound.0,
            overhead: settle(contender, Part::Overhead, zero, servers, output)?.0,
            rounds,
            cpu_x_floor: None,
            latency_bound_service: Some(latency_bound.1),
        });
        if let Some(row) = rows.last_mut() {
            [
                row.latency_bound.syscalls_per_item,
                row.overhead.syscalls_per_item,
            ] = calls;
        }
    }
    divide_by_floor(&mut rows);
    Ok(rows)
}

/// Both workloads' system calls per item for `contender`, each counted in
/// a lap of its own ([`syscalls::per_item`]); a count that fails is said
/// and left empty.
fn count_calls(
    counter: syscalls::Counter,
    contender: &Contender,
    workloads: &Workloads,
    servers: &Servers,
    runner: &Runner,
) -> [Option<f64>; 2] {
    Part::ALL.map(|part| {
        let addr = servers.addr(&server_key(contender, part))?;
        let settings = part.of(workloads).settings(addr);
        syscalls::per_item(counter, runner, contender, &settings)
            .map_err(|e| {
                eprintln!(
                    "note: {} {}: system calls not counted: {e}",
                    contender.name,
                    part.as_str()
                )
            })
            .ok()
    })
}

/// A finished run: its lap, and its timeline's path if it drew one.
type Done = (Lap, Option<PathBuf>);

/// One run: a contender, a workload, a round.
fn run_one(
    contender: &Contender,
    part: Part,
    workloads: &Workloads,
    round: usize,
    servers: &Servers,
    runner: &Runner,
    output: &Output,
) -> Result<Done, RaceError> {
    let workload = part.of(workloads);
    let addr = servers
        .addr(&server_key(contender, part))
        .ok_or_else(|| RaceError::Server {
            contender: contender.name.to_owned(),
            part: part.as_str(),
            why: "none was forked for this run".into(),
        })?;
    // Only the ladder's timelines: at zero latency a timeline of 40,000
    // items is a solid block that says nothing the table does not.
    let timeline = (part == Part::LatencyBound).then(|| {
        output
            .timelines
            .join(format!("{}.round-{round}.svg", contender.name))
    });
    let caption = format!(
        "{}   # {}: {}",
        output.command,
        contender.name,
        workload.describe()
    );
    let settings = workload.settings(addr);
    let lap = runner
        .run(contender, &settings, timeline.as_deref(), Some(&caption))
        .map_err(|error| RaceError::Run {
            contender: contender.name.to_owned(),
            part: part.as_str(),
            error,
        })?;
    Ok((lap, timeline))
}

/// Picks the median round, keeps its timeline as `NAME.svg`, and stops the
/// server, whose peak of connections is the contender's; returns the lap
/// and the service times the server applied over every round.
fn settle(
    contender: &Contender,
    part: Part,
    mut laps: Vec<Done>,
    servers: &mut Servers,
    output: &Output,
) -> Result<(Lap, ServiceStats), RaceError> {
    let server_error = |why: String| RaceError::Server {
        contender: contender.name.to_owned(),
        part: part.as_str(),
        why,
    };
    let stats = servers
        .take(&server_key(contender, part))
        .ok_or_else(|| server_error("none was forked for this run".into()))?
        .finish()
        .map_err(|e| server_error(e.to_string()))?;
    laps.sort_by(|a, b| a.0.report.throughput.total_cmp(&b.0.report.throughput));
    // `run` made at least one round; with an even count, the upper median.
    let (mut lap, timeline) = laps.swap_remove(laps.len() / 2);
    for (_, other) in laps {
        if let Some(path) = other {
            let _ = std::fs::remove_file(path);
        }
    }
    if let Some(path) = timeline {
        let kept = output.timelines.join(format!("{}.svg", contender.name));
        std::fs::rename(&path, &kept).map_err(|e| RaceError::Run {
            contender: contender.name.to_owned(),
            part: part.as_str(),
            error: RunError::Timeline(e),
        })?;
    }
    // The harness saw an external server and could not know its peak.
    lap.report.server_peak_conns = Some(stats.peak_conns);
    Ok((lap, stats.service))
}

/// What [`run`] reports as it goes.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// A run is about to start.
    Starting {
        /// 1-based.
        index: usize,
        /// Runs in the race.
        total: usize,
        /// Who.
        contender: &'a str,
        /// Which workload.
        part: Part,
    },
    /// It finished.
    Finished {
        /// Its lap.
        lap: &'a Lap,
        /// Which workload.
        part: Part,
    },
}

impl std::fmt::Display for Progress<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Progress::Starting {
                index,
                total,
                contender,
                part,
            } => write!(
                f,
                "race: [{index:>2}/{total}] {contender:<14} {:<13} ",
                part.as_str()
            ),
            Progress::Finished { lap, .. } => {
                let r = &lap.report;
                write!(
                    f,
                    "{:>9.0} items/s in {:>7}, p99 {:>7.2} ms, client CPU {:>6.1} us/item, lost {}, wrong {}",
                    r.throughput,
                    format_duration(Duration::from_secs_f64(r.elapsed_s)),
                    r.latency_ms.p99,
                    lap.client_cpu_us_per_item,
                    r.lost,
                    r.wrong
                )
            }
        }
    }
}

/// Writes `text` to `path`, creating its folder. The error names the
/// path (a bare "Is a directory" after a long race says nothing about
/// which of the files it meant).
pub fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the folder {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
