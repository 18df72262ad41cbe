//! The verifying report: what a run achieved, checked item by item.
//!
//! Built from the results database *after* the run, never from what the
//! stage says about itself. Every item of the work list is classified:
//!
//! - **ok**: stored as a success with the right result hash;
//! - **failed**: stored as a failure (counted by kind in `errors`);
//! - **lost**: no row at all, the one thing a stage must never do;
//! - **wrong**: a row that cannot be right: a wrong hash, a success where
//!   the server injected a fault, a `NAK`/`500`/protocol error the server
//!   never sent, or a row for an item that is not in the list.
//!
//! With the embedded server the report also knows which faults the server
//! injected ([`crate::faults::FaultPlan::expected`]) and shows them as
//! `expected_errors`, so a test can check that `errors` equals them.
//!
//! The figures follow Little's law: with `c` requests in flight, each
//! taking `phases × mean service time`, no client can beat
//! `c / (phases × mean)` items per second. `efficiency` is the fraction of
//! that ideal a stage reached. The mean is the service time the server
//! really *applied* (from its statistics) when it is embedded, the nominal
//! mean of `--latency` when it is external. With an embedded server the
//! number of service times per item is also the server's count (a `NAK`ed
//! item costs one, not two), so faults do not push efficiency above 100%.
//! For the same reason efficiency counts only items the server worked on:
//! a refused connect or a checkout that gave up cost it nothing, and a
//! client failing fast against a server that is down is not "efficient".
//!
//! Besides lost and wrong rows, a run can fail as a whole, and the report
//! says why in its `problems`: no item reached a working server (nothing
//! listening, or something that does not speak SLOW/1), or the embedded
//! server died during the run. A run with a problem is not
//! [sound](Report::is_sound), and exits 1. Notes only inform: the errors
//! differ from the faults the server injected (and by how much), a default
//! the harness applied.
//!
//! `report/rows.rs` is what one stored row means (its verdict) and the
//! latency percentiles over all of them; `report/text.rs` is the table for
//! people.

mod rows;
#[cfg(test)]
mod tests;
mod text;

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::faults::FaultPlan;
use crate::outcome::ErrorKind;
use crate::protocol::{ItemId, Phases};
use crate::store::Row;
use crate::workload::Item;

use self::rows::{Verdict, percentiles, verdict};

/// The report's JSON keys that are a stable contract (`docs/report.md`):
/// programs that read reports (the bench's race, tests) may
/// rely on these; more keys may be added, none renamed.
pub const CONTRACT_KEYS: [&str; 15] = [
    "stage",
    "items",
    "ok",
    "failed",
    "lost",
    "wrong",
    "errors",
    "elapsed_s",
    "throughput",
    "ideal_throughput",
    "efficiency",
    "latency_ms",
    "conns",
    "server_peak_conns",
    "db_connections",
];

/// How many lost ids and wrong rows the report quotes (the counts are
/// always complete).
const QUOTED: usize = 10;

/// What the verifier needs to know about a run besides its rows.
///
/// `#[non_exhaustive]`: only the harness (and this crate's tests) make one,
/// so a new fact breaks no stage.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunFacts {
    /// The stage's package name.
    pub stage: String,
    /// The requests the stage could have in flight at once.
    pub concurrency: usize,
    /// Single- or two-phase.
    pub phases: Phases,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// The mean service time per request line (applied, or nominal).
    pub mean_service: Duration,
    /// Request lines the server served (embedded server only). With faults,
    /// an item that is `NAK`ed costs one service time, not two; dividing by
    /// this keeps the ideal honest instead of assuming `phases` per item.
    pub served_lines: Option<u64>,
    /// The faults the server injected and its seed, when known (embedded).
    pub faults: Option<(FaultPlan, u64)>,
    /// The server's peak of concurrent connections, when known (embedded).
    pub server_peak_conns: Option<u64>,
    /// Connections the server accepted over the whole run, when known
    /// (embedded): a pool that recycles its connections opens more than its
    /// size.
    pub server_accepted: Option<u64>,
    /// Database connections that recorded outcomes.
    pub db_connections: u64,
    /// The stage's notes, and the harness's.
    pub notes: Vec<String>,
    /// What the stage saw go wrong in its own loop (a poll that held the
    /// thread, a task that spins on itself...): printed as warnings.
    pub lints: Vec<String>,
    /// The stage's own figures.
    pub stage_stats: BTreeMap<String, serde_json::Value>,
    /// The run talked to a server it did not start (`--server`).
    pub external_server: bool,
    /// How the server ended, if it died or went away during the run: the
    /// embedded server's end, or what the harness saw of an external one.
    pub server_died: Option<String>,
    /// When the embedded server was down (`--outage`), from the run's
    /// epoch.
    pub outage: Option<(Duration, Duration)>,
    /// The read timeout the run used, if any: a run whose every item
    /// timed out under it is the timeout's doing, not the server's.
    pub read_timeout: Option<Duration>,
}

impl RunFacts {
    /// The facts of a run of `stage` that know nothing yet: no concurrency,
    /// no time, no server. The harness fills them in; tests set what they
    /// check.
    pub fn new(stage: impl Into<String>, phases: Phases) -> RunFacts {
        RunFacts {
            stage: stage.into(),
            concurrency: 0,
            phases,
            elapsed: Duration::ZERO,
            mean_service: Duration::ZERO,
            served_lines: None,
            faults: None,
            server_peak_conns: None,
            server_accepted: None,
            db_connections: 0,
            notes: Vec::new(),
            lints: Vec::new(),
            stage_stats: BTreeMap::new(),
            external_server: false,
            server_died: None,
            outage: None,
            read_timeout: None,
        }
    }
}

/// Latency percentiles, in milliseconds, over every stored item (from the
/// stage starting on it to its outcome being known).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyMs {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Slowest.
    pub max: f64,
}

/// The verified outcome of a run. Its JSON keys are a stable contract
/// (`docs/report.md`); keys may be added, never renamed.
/// It also deserialises, so a program can read back a report that a stage
/// printed with `--json` in another process (the bench's race does).
///
/// # Examples
///
/// The report is built from the database's rows, not from what a stage
/// says: an item with no row is `lost`, and the run is not sound.
///
/// ```
/// use std::time::{Duration, Instant};
///
/// use testbed::protocol::Phases;
/// use testbed::report::{Report, RunFacts};
/// use testbed::store::{DbTarget, Lane, Store};
/// use testbed::workload::items;
///
/// let list = items(3, 1);
/// let mut store = Store::create_run(&DbTarget::memory(), Instant::now(), "example")?;
/// for item in &list[..2] {
///     store.record(item.id, Lane(0), Instant::now(), &Ok(item.expected_result()))?;
/// }
/// let mut facts = RunFacts::new("example", Phases::Two);
/// facts.concurrency = 1;
/// facts.elapsed = Duration::from_millis(20);
/// facts.mean_service = Duration::from_millis(5);
/// let report = Report::build(&list, &store.rows()?, facts);
/// assert_eq!((report.ok, report.lost, report.wrong), (2, 1, 0));
/// assert_eq!(report.lost_ids, [list[2].id.0]);
/// assert!(!report.is_sound());
/// # Ok::<(), testbed::store::StoreError>(())
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// The stage's package name.
    pub stage: String,
    /// Items in the work list.
    pub items: u64,
    /// Right successes.
    pub ok: u64,
    /// Stored failures (by kind in `errors`).
    pub failed: u64,
    /// Items with no row.
    pub lost: u64,
    /// Rows that cannot be right.
    pub wrong: u64,
    /// Failures by kind.
    pub errors: BTreeMap<String, u64>,
    /// Failures the server forced, by kind (`null` for an external server).
    pub expected_errors: Option<BTreeMap<String, u64>>,
    /// Wall time, seconds.
    pub elapsed_s: f64,
    /// Items per second.
    pub throughput: f64,
    /// Little's law: `min(conns, items) / (phases × mean)`; `null` at zero
    /// latency, where only the machine limits throughput.
    pub ideal_throughput: Option<f64>,
    /// `throughput / ideal_throughput`.
    pub efficiency: Option<f64>,
    /// Per-item latency.
    pub latency_ms: LatencyMs,
    /// The stage's concurrency.
    pub conns: u64,
    /// The server's peak of concurrent connections (`null` when external).
    pub server_peak_conns: Option<u64>,
    /// Connections the server accepted during the run (`null` when
    /// external).
    pub server_accepted: Option<u64>,
    /// Database connections that recorded outcomes.
    pub db_connections: u64,
    /// Request lines per item (`--phases`).
    pub phases: u32,
    /// Service times per item the ideal assumes: `phases`, or with an
    /// embedded server the lines it really served per item.
    pub lines_per_item: f64,
    /// The mean service time per request line used for the ideal, ms.
    pub mean_service_ms: f64,
    /// Up to ten lost ids.
    pub lost_ids: Vec<u64>,
    /// Up to ten wrong rows, explained.
    pub wrong_rows: Vec<String>,
    /// What the stage and the harness want a reader to know.
    pub notes: Vec<String>,
    /// What the stage saw go wrong in its own loop, one line each
    /// ([`crate::stage::RunStats::lint`]): always present, empty when none.
    #[serde(default)]
    pub lints: Vec<String>,
    /// Why the run failed as a whole, if it did: each one makes it unsound
    /// (see the module docs).
    #[serde(default)]
    pub problems: Vec<String>,
    /// The stage's own figures.
    pub stage_stats: BTreeMap<String, serde_json::Value>,
    /// The run talked to a server it did not start (`--server`).
    #[serde(default)]
    pub external_server: bool,
    /// When the embedded server was down (`--outage`): from and to, in ms
    /// since the run started. Timelines shade it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outage_ms: Option<[f64; 2]>,
    /// Every wrong row's id, for the timeline to mark its bar wrong (a
    /// wrong row claims success). Not part of the report's JSON, whose
    /// `wrong_rows` quote the first few with their reasons.
    #[serde(skip)]
    pub wrong_ids: Vec<u64>,
}

impl Report {
    /// Verifies `rows` against `items` and computes the figures.
    pub fn build(items: &[Item], rows: &[Row], facts: RunFacts) -> Report {
        let mut report = Report::empty(items.len(), &facts);
        let by_id: BTreeMap<ItemId, &Row> = rows.iter().map(|row| (row.id, row)).collect();
        let mut expected_errors = BTreeMap::new();

        for item in items {
            let expected = facts
                .faults
                .map(|(plan, seed)| plan.expected(seed, item.id, facts.phases));
            if let Some(kind) = expected.flatten() {
                *expected_errors.entry(kind.to_string()).or_insert(0) += 1;
            }
            let Some(row) = by_id.get(&item.id) else {
                report.lost += 1;
                if report.lost_ids.len() < QUOTED {
                    report.lost_ids.push(item.id.0);
                }
                continue;
            };
            match verdict(item, row, expected) {
                Verdict::Ok => report.ok += 1,
                Verdict::Failed(kind) => {
                    report.failed += 1;
                    *report.errors.entry(kind.to_string()).or_insert(0) += 1;
                }
                Verdict::Wrong(why) => {
                    report.wrong_ids.push(row.id.0);
                    report.note_wrong(why);
                }
            }
        }
        let listed: std::collections::BTreeSet<ItemId> = items.iter().map(|i| i.id).collect();
        for row in rows.iter().filter(|row| !listed.contains(&row.id)) {
            report.wrong_ids.push(row.id.0);
            report.note_wrong(format!("item {} is not in the work list", row.id));
        }
        if facts.faults.is_some() {
            report.expected_errors = Some(expected_errors);
        }
        report.latency_ms = percentiles(rows);
        report.rates(&facts);
        report.note_drift(facts.faults.and_then(|(plan, _)| plan.outage()).is_some());
        if let Some(death) = &facts.server_died {
            // The items after its death failed in no time, at no service
            // cost: an efficiency would measure the death, not the stage.
            report.efficiency = None;
            report.problems.push(if facts.external_server {
                format!(
                    "the server went away during the run: {death}; the failures after that are \
                     its, not the stage's, and the run measures nothing"
                )
            } else {
                format!(
                    "the embedded server died during the run: {death}; the failures after its \
                     death are its, not the stage's"
                )
            });
        }
        if report.reached_no_server() {
            // Failing fast against nothing is not efficiency (see `rates`).
            report.efficiency = None;
            let problem = text::no_answer(&report.errors, &facts);
            report.problems.push(problem);
        }
        report
    }

    /// True when items were sent and none got a SLOW/1 answer: no success,
    /// no `NAK` and no `500`, and not because the server's own faults said
    /// so (a plan of `drop=1` fails every item, as asked). Such a report
    /// has a problem saying so.
    pub fn reached_no_server(&self) -> bool {
        let answered = self.ok
            + [ErrorKind::Nak, ErrorKind::Ko]
                .into_iter()
                .filter_map(|kind| self.errors.get(kind.as_str()))
                .sum::<u64>();
        let as_injected = self.expected_errors.as_ref() == Some(&self.errors);
        self.items > self.lost && answered == 0 && !as_injected
    }

    /// A note when the failures are not the faults the server injected,
    /// kind by kind: a client too slow for its own read timeout, a server
    /// overloaded, an outage (whose failures no plan predicts). A sound run
    /// may have one; the conformance check, which runs a stage where
    /// nothing of the sort should happen, demands there is none.
    fn note_drift(&mut self, outage: bool) {
        let Some(expected) = &self.expected_errors else {
            return;
        };
        if *expected == self.errors {
            return;
        }
        let every_kind: std::collections::BTreeSet<&String> =
            expected.keys().chain(self.errors.keys()).collect();
        let diffs: Vec<String> = every_kind
            .into_iter()
            .filter_map(|kind| {
                let got = self.errors.get(kind).copied().unwrap_or(0);
                let want = expected.get(kind).copied().unwrap_or(0);
                (got != want).then(|| {
                    let delta = got as i64 - want as i64;
                    format!("{kind} {got} where the server injected {want} ({delta:+})")
                })
            })
            .collect();
        let why = if outage {
            "the outage window fails items no plan can predict"
        } else {
            "timeouts from a loaded machine, or a stage that misreads its replies"
        };
        self.notes.push(format!(
            "the errors differ from the faults the server injected: {} ({why})",
            diffs.join(", ")
        ));
    }

    /// Throughput, the Little's-law ideal and efficiency, counting only the
    /// items that have an outcome: a lost item was neither done nor, often,
    /// even sent, so it must not count as work (nor as cheap work).
    ///
    /// Efficiency goes one step further and counts only the items the
    /// server worked on: a refused connect costs no service time, and a run
    /// against a server that is down would otherwise "beat" the law by
    /// failing fast. When no item reached the server there is no
    /// efficiency at all.
    fn rates(&mut self, facts: &RunFacts) {
        let done = self.items - self.lost;
        let no_service: u64 = ErrorKind::ALL
            .into_iter()
            .filter(|kind| kind.costs_no_service())
            .filter_map(|kind| self.errors.get(kind.as_str()))
            .sum();
        let served = done.saturating_sub(no_service);
        if let Some(lines) = facts.served_lines.filter(|&l| l > 0 && served > 0) {
            self.lines_per_item = lines as f64 / served as f64;
        }
        let per_item = facts.mean_service.as_secs_f64() * self.lines_per_item;
        let in_flight = (facts.concurrency as u64).min(served).max(1) as f64;
        let ideal = (per_item > 0.0).then(|| in_flight / per_item);
        let per_second = |n: u64| {
            if self.elapsed_s > 0.0 {
                n as f64 / self.elapsed_s
            } else {
                0.0
            }
        };
        self.throughput = per_second(done);
        self.ideal_throughput = ideal;
        self.efficiency = ideal
            .filter(|_| served > 0)
            .map(|ideal| per_second(served) / ideal);
    }

    fn empty(items: usize, facts: &RunFacts) -> Report {
        Report {
            stage: facts.stage.clone(),
            items: items as u64,
            ok: 0,
            failed: 0,
            lost: 0,
            wrong: 0,
            errors: BTreeMap::new(),
            expected_errors: None,
            elapsed_s: facts.elapsed.as_secs_f64(),
            throughput: 0.0,
            ideal_throughput: None,
            efficiency: None,
            latency_ms: LatencyMs::default(),
            conns: facts.concurrency as u64,
            server_peak_conns: facts.server_peak_conns,
            server_accepted: facts.server_accepted,
            db_connections: facts.db_connections,
            phases: facts.phases.count(),
            lines_per_item: f64::from(facts.phases.count()),
            mean_service_ms: facts.mean_service.as_secs_f64() * 1e3,
            lost_ids: Vec::new(),
            wrong_rows: Vec::new(),
            notes: facts.notes.clone(),
            lints: facts.lints.clone(),
            problems: Vec::new(),
            stage_stats: facts.stage_stats.clone(),
            external_server: facts.external_server,
            outage_ms: facts
                .outage
                .map(|(from, to)| [from.as_secs_f64() * 1e3, to.as_secs_f64() * 1e3]),
            wrong_ids: Vec::new(),
        }
    }

    fn note_wrong(&mut self, why: String) {
        self.wrong += 1;
        if self.wrong_rows.len() < QUOTED {
            self.wrong_rows.push(why);
        }
    }

    /// Nothing lost, nothing wrong, no problem: the run kept the contract,
    /// whatever the server's faults did to individual items.
    pub fn is_sound(&self) -> bool {
        self.lost == 0 && self.wrong == 0 && self.problems.is_empty()
    }

    /// The report as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report is plain data and always serialises")
    }
}

/// `refused 5, closed 2`: failures by kind, for people.
fn kinds(map: &BTreeMap<String, u64>) -> String {
    map.iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}
