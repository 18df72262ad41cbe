//! The race: every contender on the same two workloads, in one run.
//!
//! Two workloads, because one question is not enough:
//!
//! - **latency-bound** (the ladder): 4,000 items, a slow server, 2 ms per
//!   request line, two-phase, 50 connections. Here a stage is judged by
//!   Little's law: with 50 requests in flight, each taking 2 × 2 ms, no
//!   client can beat 50 / 4 ms = 12,500 items/s. 01-sync is stuck at
//!   1 / 4 ms = 250.
//! - **overhead**: 40,000 items, the same at zero latency. Now only the
//!   machine limits throughput (system calls, loopback TCP, the server's
//!   own threads on the same two cores), and the models differ in what each
//!   item costs the *client* in CPU ([`crate::cpu`]).
//!
//! Each contender gets a slow server per workload in a process of its own,
//! forked before anything else ([`crate::racing::plan`],
//! [`crate::servers`]): its peak of connections is then that contender's
//! alone, and the client's CPU time is the client's alone. On a shared
//! machine one run is noisy, so the race runs several rounds and shows, for
//! each contender, the round with the median throughput
//! ([`crate::racing::run`]).
//!
//! A row ([`Row`]) is one contender: the latency-bound run's report keys at
//! the top level (like a stage's `--json`), plus the client's CPU time, and
//! the overhead run's under `overhead`.
//!
//! This module is the race's model: what it runs, and what it found, which
//! reads back from `race.json`. Not here: running it ([`crate::racing`]),
//! drawing ([`crate::chart`]) and tables ([`crate::table`]).

use std::net::SocketAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use testbed::cli::Settings;
use testbed::faults::FaultPlan;
use testbed::latency::LatencyModel;
use testbed::protocol::Phases;
use testbed::server::{ServerConfig, ServiceStats};

use crate::contenders::Kind;
use crate::run::Lap;
use crate::syscalls::Counter;

/// The seed of the item list and the server's draws (fixed: every
/// contender gets the same items).
pub const SEED: u64 = 1;

/// One workload: what every contender is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// Items to process.
    pub items: usize,
    /// Concurrency: connections, workers, tasks or fibers.
    pub conns: usize,
    /// Request lines per item.
    #[serde(
        serialize_with = "phases_count",
        deserialize_with = "phases_from_count"
    )]
    pub phases: Phases,
    /// The server's service time per request line.
    #[serde(serialize_with = "as_spec", deserialize_with = "from_spec")]
    pub latency: LatencyModel,
}

fn phases_count<S: serde::Serializer>(phases: &Phases, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u32(phases.count())
}

fn as_spec<S: serde::Serializer>(latency: &LatencyModel, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(latency)
}

fn phases_from_count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Phases, D::Error> {
    match u32::deserialize(d)? {
        1 => Ok(Phases::One),
        2 => Ok(Phases::Two),
        n => Err(serde::de::Error::custom(format!(
            "{n} phases: expected 1 or 2"
        ))),
    }
}

fn from_spec<'de, D: serde::Deserializer<'de>>(d: D) -> Result<LatencyModel, D::Error> {
    String::deserialize(d)?
        .parse()
        .map_err(serde::de::Error::custom)
}

impl Workload {
    /// The harness's settings for this workload against `server`. `json` is
    /// set only to keep the harness's progress bar off: the race prints its
    /// own progress lines.
    pub fn settings(&self, server: SocketAddr) -> Settings {
        Settings {
            items: self.items,
            conns: self.conns,
            phases: self.phases,
            latency: self.latency,
            faults: FaultPlan::none(),
            seed: SEED,
            server: Some(server),
            json: true,
            ..Settings::default()
        }
    }

    /// The server that serves it.
    pub fn server_config(&self) -> ServerConfig {
        ServerConfig {
            latency: self.latency,
            faults: FaultPlan::none(),
            seed: SEED,
            max_conns: None,
        }
    }

    /// `2000 items, 50 conns, 2ms, two-phase`.
    pub fn describe(&self) -> String {
        let phases = match self.phases {
            Phases::One => "single-phase",
            Phases::Two => "two-phase",
        };
        let latency = if self.latency.mean().is_zero() {
            "zero".to_owned()
        } else {
            self.latency.to_string()
        };
        format!(
            "{} items, {} conns, {latency} latency, {phases}",
            self.items, self.conns
        )
    }
}

/// The two workloads of a race.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Workloads {
    /// The latency-bound workload: the ladder.
    pub latency_bound: Workload,
    /// The zero-latency workload: CPU per item.
    pub overhead: Workload,
}

impl Workloads {
    /// The default race: 4,000 items at 2 ms (01-sync alone needs 16 s of
    /// it), 40,000 at zero latency.
    pub fn full() -> Workloads {
        Workloads {
            latency_bound: Workload {
                items: 4_000,
                conns: 50,
                phases: Phases::Two,
                latency: LatencyModel::Fixed(Duration::from_millis(2)),
            },
            overhead: Workload {
                items: 40_000,
                conns: 50,
                phases: Phases::Two,
                latency: LatencyModel::Fixed(Duration::ZERO),
            },
        }
    }

    /// `--quick`: half the ladder's items and a quarter of the overhead's;
    /// with the default three rounds, the whole race takes about a minute
    /// here (under two on a busy machine).
    pub fn quick() -> Workloads {
        let full = Workloads::full();
        Workloads {
            latency_bound: Workload {
                items: 2_000,
                ..full.latency_bound
            },
            overhead: Workload {
                items: 10_000,
                ..full.overhead
            },
        }
    }
}

/// Which workload a run belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// [`Workloads::latency_bound`].
    LatencyBound,
    /// [`Workloads::overhead`].
    Overhead,
}

impl Part {
    /// Both, in the order they run.
    pub const ALL: [Part; 2] = [Part::LatencyBound, Part::Overhead];

    /// Its name in progress lines and server keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Part::LatencyBound => "latency-bound",
            Part::Overhead => "overhead",
        }
    }

    /// Its workload among `workloads`.
    pub fn of(self, workloads: &Workloads) -> &Workload {
        match self {
            Part::LatencyBound => &workloads.latency_bound,
            Part::Overhead => &workloads.overhead,
        }
    }
}

/// One contender's results: the latency-bound lap's keys at the top level,
/// the overhead lap under `overhead`. With several rounds, each is the
/// round with the median throughput (a real run, not an average of runs),
/// and `rounds` lists them all.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    /// A rung of the ladder or a reference (`null` in a race saved before
    /// this key existed).
    pub kind: Option<Kind>,
    /// The latency-bound run.
    #[serde(flatten)]
    pub latency_bound: Lap,
    /// The zero-latency run.
    pub overhead: Lap,
    /// Every round's headline figures, in the order they ran.
    pub rounds: Rounds,
    /// The zero-latency run's client CPU per item as a multiple of the
    /// `floor` row's ([`crate::floor`]): how far above the least a client
    /// can do for this workload (`null` when the floor did not race).
    #[serde(default)]
    pub cpu_x_floor: Option<f64>,
    /// The service times the latency-bound run's server really applied,
    /// over every round (`null` in a race saved before this key existed):
    /// with the throughput, they split each item's time into service,
    /// the server's overshoot and the client's delay ([`Row::time_split`]).
    #[serde(default)]
    pub latency_bound_service: Option<ServiceStats>,
}

/// Where a connection's time per item went in the latency-bound run, in
/// ms: see [`Row::time_split`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeSplit {
    /// What the workload asks: phases × the nominal service time.
    pub service_ms: f64,
    /// Phases × (the mean applied service time − the nominal one): the
    /// server's sleeps waking late.
    pub overshoot_ms: f64,
    /// The rest of a connection's time per item: the client's work between
    /// a reply and the next request, loopback, waiting for a core, and the
    /// start and the end of the run, when some connections have no item.
    pub client_ms: f64,
}

impl TimeSplit {
    /// The whole: a connection's time per item, `conns / throughput`.
    pub fn total_ms(&self) -> f64 {
        self.service_ms + self.overshoot_ms + self.client_ms
    }
}

/// Every round's headline figures, per workload.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Rounds {
    /// The latency-bound rounds.
    pub latency_bound: Vec<RoundFigures>,
    /// The zero-latency rounds.
    pub overhead: Vec<RoundFigures>,
}

/// One round's headline figures.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct RoundFigures {
    /// Items per second.
    pub throughput: f64,
    /// The client's CPU time per item, µs.
    pub client_cpu_us_per_item: f64,
}

impl RoundFigures {
    /// The headline figures of `lap`.
    pub fn of(lap: &Lap) -> RoundFigures {
        RoundFigures {
            throughput: lap.report.throughput,
            client_cpu_us_per_item: lap.client_cpu_us_per_item,
        }
    }
}

/// The name of the row every row's CPU per item is divided by.
pub const FLOOR: &str = "floor";

/// Sets every row's [`Row::cpu_x_floor`] from the `floor` row, if any.
pub fn divide_by_floor(rows: &mut [Row]) {
    let floor = rows
        .iter()
        .find(|r| r.overhead.report.stage == FLOOR)
        .map(|r| r.overhead.client_cpu_us_per_item)
        .filter(|&cpu| cpu > 0.0);
    for row in rows {
        row.cpu_x_floor = floor.map(|f| row.overhead.client_cpu_us_per_item / f);
    }
}

impl Row {
    /// Splits the latency-bound run's time per item and connection
    /// (`conns / throughput`, Little's law read backwards) into service,
    /// overshoot and the client's share; `None` without the server's
    /// figures or without latency.
    pub fn time_split(&self, workload: &Workload) -> Option<TimeSplit> {
        let report = &self.latency_bound.report;
        let service = self.latency_bound_service.filter(|s| s.count > 0)?;
        let nominal_ms = workload.latency.mean().as_secs_f64() * 1e3;
        if nominal_ms == 0.0 || report.throughput <= 0.0 {
            return None;
        }
        let phases = f64::from(workload.phases.count());
        let lanes = report.conns.min(report.items).max(1) as f64;
        let total_ms = lanes / report.throughput * 1e3;
        let applied_ms = service.mean_applied_us / 1e3;
        Some(TimeSplit {
            service_ms: phases * nominal_ms,
            overshoot_ms: phases * (applied_ms - nominal_ms),
            client_ms: total_ms - phases * applied_ms,
        })
    }

    /// Nothing lost and nothing wrong, in either run.
    pub fn is_sound(&self) -> bool {
        self.latency_bound.report.is_sound() && self.overhead.report.is_sound()
    }
}

/// A finished race. It reads back from its own JSON (`race.json`), so the
/// table and the chart can be remade without racing again (`--replot`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Race {
    /// One row per contender, in registry order.
    pub rows: Vec<Row>,
    /// What they were asked to do.
    pub workloads: Workloads,
    /// The command that made it.
    pub command: String,
    /// The share of the machine's CPU time the hypervisor took while it
    /// ran, from 0 to 1 (`null` where the machine does not say, or in a
    /// race saved before this key existed). See [`testbed::machine::MachineTicks`].
    #[serde(default)]
    pub steal: Option<f64>,
    /// The tool that counted the system calls per item (`null` when none
    /// could, or in a race saved before this key existed): perf and strace
    /// do not give the same figures.
    #[serde(default)]
    pub syscall_counter: Option<Counter>,
    /// Contenders of the default race that could not run on this machine,
    /// one note each, saying why ([`crate::lineup`]).
    #[serde(default)]
    pub left_out: Vec<String>,
    /// The signal that stopped the race early (`"SIGINT"`, `"SIGTERM"`):
    /// the rows are then the laps it finished, each contender's median of
    /// the rounds it ran, with no system calls counted. `null` for a race
    /// that ran to its end.
    #[serde(default)]
    pub interrupted: Option<String>,
}

/// The largest figure a race records: no count, time, rate or share it
/// measures comes near it (ten million items at most, a run of hours).
const MAX_FIGURE: f64 = 1e15;

impl Race {
    /// Checks a race read back from a file (`--replot`): every figure in
    /// it must be one a race can measure, not negative and below 10^15.
    /// A file edited by hand, or damaged, would otherwise draw `inf` into
    /// the chart and print `-inf%`. The error names the first bad figure
    /// by its place in the JSON (`rows[2].throughput`).
    pub fn check(&self) -> Result<(), String> {
        let value = serde_json::to_value(self).map_err(|e| e.to_string())?;
        check_figures(&value, "")
    }
}

fn check_figures(value: &serde_json::Value, at: &str) -> Result<(), String> {
    use serde_json::Value;
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(x) if (0.0..=MAX_FIGURE).contains(&x) => Ok(()),
            _ => Err(format!(
                "{at} is {n}, which no race measures (every figure is from 0 to 1e15)"
            )),
        },
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| check_figures(item, &format!("{at}[{i}]"))),
        Value::Object(fields) => fields.iter().try_for_each(|(key, field)| {
            let at = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            check_figures(field, &at)
        }),
        _ => Ok(()),
    }
}
