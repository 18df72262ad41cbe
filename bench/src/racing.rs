//! Running the race: one server per contender and workload, every round
//! through every contender, the median round kept.
//!
//! Not here: what a race is and what it found ([`crate::race`]), one run
//! of one contender ([`crate::run`]).

use std::path::{Path, PathBuf};
use std::process::Command;
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

/// What a race finished with.
#[derive(Debug)]
pub struct Finished {
    /// One row per contender that finished both workloads at least once.
    pub rows: Vec<Row>,
    /// The laps that finished.
    pub laps: usize,
    /// Of which in `rows`: a contender stopped between its latency-bound
    /// lap and its first overhead lap has no row, and its lap is dropped.
    pub kept: usize,
    /// The tool that counted the system calls, if one could.
    pub counter: Option<syscalls::Counter>,
    /// `stop` said yes before the last lap: the race was cut short.
    pub interrupted: bool,
}

/// Runs the race: `rounds` times every contender on both workloads, each
/// contender and workload on its own server from `servers`. Rounds run one
/// after the other, each through every contender, so a burst of load from
/// elsewhere on the machine spoils one round of several contenders rather
/// than every round of one. `progress` hears before and after each run.
///
/// `stop` is asked before each lap, and after a lap that failed: once it
/// says yes, no lap starts, and the race ends with the laps it finished
/// (a lap that failed then is taken for one the stop cut short, as Ctrl-C
/// does to a contender in a process of its own). A lap in this process is
/// not stopped half-way: it runs to its end first.
#[allow(clippy::too_many_arguments)] // Each is one of the race's parts; a struct of them would be named for nothing.
pub fn run(
    contenders: &[&Contender],
    workloads: &Workloads,
    rounds: usize,
    servers: &mut Servers,
    runner: &Runner,
    output: &Output,
    progress: &mut dyn FnMut(Progress<'_>),
    stop: &dyn Fn() -> bool,
) -> Result<Finished, RaceError> {
    let rounds = rounds.max(1);
    let total = rounds * contenders.len() * Part::ALL.len();
    // laps[contender][part]: every round's lap.
    let mut laps: Vec<[Vec<Lap>; 2]> = contenders
        .iter()
        .map(|_| [Vec::new(), Vec::new()])
        .collect();
    let mut index = 0;
    let mut interrupted = false;
    'race: for _round in 1..=rounds {
        for (contender, laps) in contenders.iter().zip(&mut laps) {
            for (part, laps) in Part::ALL.into_iter().zip(laps.iter_mut()) {
                if stop() {
                    interrupted = true;
                    break 'race;
                }
                index += 1;
                progress(Progress::Starting {
                    index,
                    total,
                    contender: contender.name,
                    part,
                });
                match run_one(contender, part, workloads, servers, runner, output) {
                    // A signal that lands while a lap's process is being
                    // started (after its fork, before it has a process
                    // group of its own) reaches the lap too, which then
                    // stops with items unrecorded: a lap cut short, not
                    // kept.
                    Ok(lap) if stop() && !lap.report.is_sound() => {
                        interrupted = true;
                        break 'race;
                    }
                    Ok(lap) => {
                        progress(Progress::Finished { lap: &lap, part });
                        laps.push(lap);
                    }
                    Err(_) if stop() => {
                        interrupted = true;
                        break 'race;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
    }
    let finished = laps.iter().flatten().map(Vec::len).sum();
    // One more lap of each, its system calls counted by the kernel; not
    // after a stop, which asked for the end.
    let counter = if interrupted {
        None
    } else {
        let probe = || {
            let mut command = Command::new(&runner.race_exe);
            command.arg("--version");
            command
        };
        syscalls::Counter::find(probe)
            .map_err(|why| eprintln!("note: {why}"))
            .ok()
    };
    let mut rows = Vec::new();
    let mut kept = 0;
    for (contender, [ladder, zero]) in contenders.iter().zip(laps) {
        if ladder.is_empty() || zero.is_empty() {
            continue; // Stopped before it finished both: no row.
        }
        kept += ladder.len() + zero.len();
        // A stop during the counted laps ends them: the rows so far keep
        // their counts, the rest have none.
        interrupted |= stop();
        let calls = match counter {
            Some(c) if !interrupted => count_calls(c, contender, workloads, servers, runner),
            _ => [None, None],
        };
        let figures = |laps: &[Lap]| laps.iter().map(RoundFigures::of).collect();
        let rounds = Rounds {
            latency_bound: figures(&ladder),
            overhead: figures(&zero),
        };
        let latency_bound = settle(contender, Part::LatencyBound, ladder, servers)?;
        rows.push(Row {
            kind: Some(contender.kind),
            latency_bound: latency_bound.0,
            overhead: settle(contender, Part::Overhead, zero, servers)?.0,
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
    Ok(Finished {
        rows,
        laps: finished,
        kept,
        counter,
        interrupted,
    })
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

/// One run: a contender, a workload. The latency-bound run draws its
/// timeline into `NAME.lap.svg`, which replaces `NAME.svg` once the lap
/// has finished: each contender keeps one picture, its last finished
/// round's, however many rounds run, and a race stopped in the middle of
/// a lap still has a whole picture of the round before.
fn run_one(
    contender: &Contender,
    part: Part,
    workloads: &Workloads,
    servers: &Servers,
    runner: &Runner,
    output: &Output,
) -> Result<Lap, RaceError> {
    let workload = part.of(workloads);
    let run_error = |error| RaceError::Run {
        contender: contender.name.to_owned(),
        part: part.as_str(),
        error,
    };
    let addr = servers
        .addr(&server_key(contender, part))
        .ok_or_else(|| RaceError::Server {
            contender: contender.name.to_owned(),
            part: part.as_str(),
            why: "none was forked for this run".into(),
        })?;
    // Only the ladder's timelines: at zero latency a timeline of 40,000
    // items is a solid block that says nothing the table does not.
    let drawing = (part == Part::LatencyBound)
        .then(|| output.timelines.join(format!("{}.lap.svg", contender.name)));
    let caption = format!(
        "{}   # {}: {}",
        output.command,
        contender.name,
        workload.describe()
    );
    let settings = workload.settings(addr);
    let ran = runner.run(contender, &settings, drawing.as_deref(), Some(&caption));
    let Some(drawing) = drawing else {
        return ran.map_err(run_error);
    };
    let lap = match ran {
        Ok(lap) => lap,
        Err(error) => {
            let _ = std::fs::remove_file(&drawing);
            return Err(run_error(error));
        }
    };
    let kept = output.timelines.join(format!("{}.svg", contender.name));
    std::fs::rename(&drawing, &kept).map_err(|e| run_error(RunError::Timeline(e)))?;
    Ok(lap)
}

/// Picks the median round and stops the server, whose peak of connections
/// is the contender's; returns the lap and the service times the server
/// applied over every round.
fn settle(
    contender: &Contender,
    part: Part,
    mut laps: Vec<Lap>,
    servers: &mut Servers,
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
    laps.sort_by(|a, b| a.report.throughput.total_cmp(&b.report.throughput));
    // `run` made at least one round; with an even count, the upper median.
    let mut lap = laps.swap_remove(laps.len() / 2);
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
                )?;
                // A loop that went wrong says so under its line: a race of
                // a stage that blocks or spins measures the bug, not the stage.
                for lint in &r.lints {
                    write!(f, "\n  warning: {lint}")?;
                }
                Ok(())
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
