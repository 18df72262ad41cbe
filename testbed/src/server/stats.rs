//! What the slow server counts while it runs, and the snapshot it hands out.
//!
//! Thousands of connection threads update the same numbers, so the live
//! counters ([`Counters`]) are atomics: an increment is one instruction, no
//! thread ever waits for a lock to count. A [`ServerStats`] is a plain-data
//! copy taken from them, cheap to clone, print and send as JSON (the forked
//! server ships its final statistics to the parent that way).
//!
//! The service-time statistics answer one question: *how faithful is the
//! simulation?* A stage's throughput is judged against Little's law with the
//! nominal latency, so the server records how much longer than nominal each
//! request really took (the "overshoot": timer and scheduling delay) in a
//! fixed-size histogram: memory stays bounded however long the server runs.
//!
//! Not here: deciding anything. The counters only observe; the server and
//! its connections (`server.rs`, `session.rs`) call them.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::duration::format_duration;
use crate::faults::Fault;
use crate::protocol::Phase;

use super::histogram::{BUCKETS, bucket_of, percentile};

/// A snapshot of the server's statistics.
///
/// `accepted + refused` is every TCP connection that reached the server.
/// Counters are read one by one while connections keep working, so a
/// snapshot of a busy server may be off by the requests in flight; the
/// snapshot returned by [`SlowServer::shutdown`](super::SlowServer::shutdown)
/// is exact.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerStats {
    /// Connections admitted and served.
    pub accepted: u64,
    /// Connections turned away with `503 busy` (connection limit reached, or
    /// no thread could be started for them).
    pub refused: u64,
    /// Connections turned away with `503 out of descriptors`: the process
    /// had none left to serve them with.
    #[serde(default)]
    pub out_of_descriptors: u64,
    /// Connections closed by the idle timeout.
    #[serde(default)]
    pub idle_closed: u64,
    /// Connections reset by the outage window: open when it began, or
    /// accepted during it by a server that could not hold its port.
    #[serde(default)]
    pub reset_by_outage: u64,
    /// Connections open right now.
    pub active: u64,
    /// The most connections open at the same time.
    pub peak_conns: u64,
    /// Request lines taken into service, by phase.
    pub requests: PhaseCounts,
    /// Faults injected, keyed by [`Fault::as_str`]; every kind is present.
    pub faults: BTreeMap<String, u64>,
    /// Lines answered with `400` (malformed, too long, out of sequence).
    pub bad_requests: u64,
    /// Connection threads that panicked, counted when joined (at the
    /// latest when the server stops). Always 0 unless the server has a bug:
    /// it must not panic on any input.
    pub panics: u64,
    /// How long requests really waited, against their nominal latency.
    pub service: ServiceStats,
}

/// Request lines per phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseCounts {
    /// `GET` lines.
    pub get: u64,
    /// `HEAD` lines.
    pub head: u64,
    /// `BODY` lines.
    pub body: u64,
}

impl PhaseCounts {
    /// All request lines.
    pub fn total(&self) -> u64 {
        self.get + self.head + self.body
    }
}

/// Applied service times: the time from receiving a request line to just
/// before its reply (or fault) is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ServiceStats {
    /// Request lines whose service time ran to the end (those cut short by
    /// a shutdown are not counted).
    pub count: u64,
    /// Mean applied service time, in microseconds.
    pub mean_applied_us: f64,
    /// Median overshoot (applied minus nominal), in microseconds.
    pub overshoot_p50_us: u64,
    /// 99th percentile of the overshoot, in microseconds.
    pub overshoot_p99_us: u64,
    /// Largest overshoot, in microseconds.
    pub overshoot_max_us: u64,
}

impl ServerStats {
    /// The mean service time the server really applied; `None` before the
    /// first request was served. This, not the model's nominal mean, is the
    /// honest denominator for Little's law.
    pub fn mean_service_time(&self) -> Option<Duration> {
        // Rounded to whole nanoseconds, far below the microsecond resolution
        // of what was recorded.
        let nanos = (self.service.mean_applied_us * 1e3).round() as u64;
        (self.service.count > 0).then(|| Duration::from_nanos(nanos))
    }

    /// How many faults of `kind` were injected.
    pub fn faults_of(&self, kind: Fault) -> u64 {
        self.faults.get(kind.as_str()).copied().unwrap_or(0)
    }
}

impl fmt::Display for ServerStats {
    /// A short block for people: one line per subject.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.requests;
        writeln!(
            f,
            "connections: {} accepted, {} refused, {} active, peak {}",
            self.accepted, self.refused, self.active, self.peak_conns
        )?;
        let closed: Vec<String> = [
            (self.out_of_descriptors, "turned away out of descriptors"),
            (self.idle_closed, "closed idle"),
            (self.reset_by_outage, "reset by the outage"),
        ]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if !closed.is_empty() {
            writeln!(f, "             {}", closed.join(", "))?;
        }
        writeln!(
            f,
            "requests:    {} (get {}, head {}, body {}), {} bad",
            r.total(),
            r.get,
            r.head,
            r.body,
            self.bad_requests
        )?;
        if self.panics > 0 {
            writeln!(f, "panics:      {} connection threads (a bug)", self.panics)?;
        }
        let faults: Vec<String> = self
            .faults
            .iter()
            .filter(|&(_, &n)| n > 0)
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        let faults = if faults.is_empty() {
            "none".to_owned()
        } else {
            faults.join(", ")
        };
        writeln!(f, "faults:      {faults}")?;
        let s = &self.service;
        let us = |n: u64| format_duration(Duration::from_micros(n));
        match self.mean_service_time() {
            None => write!(f, "service:     nothing served"),
            Some(mean) => write!(
                f,
                "service:     {} served, mean {}, overshoot p50 {} p99 {} max {}",
                s.count,
                format_duration(mean),
                us(s.overshoot_p50_us),
                us(s.overshoot_p99_us),
                us(s.overshoot_max_us)
            ),
        }
    }
}

/// The live counters, shared by the accept thread and every connection.
///
/// All updates are `Relaxed`: each counter is independent, and nobody makes
/// a decision from one counter that depends on seeing another first. The
/// one decision made from a counter, the connection limit, reads `active`
/// on the only thread that increments it.
#[derive(Debug)]
pub(super) struct Counters {
    accepted: AtomicU64,
    refused: AtomicU64,
    out_of_descriptors: AtomicU64,
    idle_closed: AtomicU64,
    reset_by_outage: AtomicU64,
    active: AtomicU64,
    peak_conns: AtomicU64,
    /// Indexed by [`Phase::index`].
    requests: [AtomicU64; 3],
    /// Indexed like [`Fault::ALL`].
    faults: [AtomicU64; Fault::ALL.len()],
    bad_requests: AtomicU64,
    panics: AtomicU64,
    served: AtomicU64,
    applied_us_total: AtomicU64,
    overshoot_max_us: AtomicU64,
    /// Overshoot counts by [`bucket_of`].
    overshoot: Box<[AtomicU64]>,
}

impl Default for Counters {
    fn default() -> Counters {
        Counters {
            accepted: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            out_of_descriptors: AtomicU64::new(0),
            idle_closed: AtomicU64::new(0),
            reset_by_outage: AtomicU64::new(0),
            active: AtomicU64::new(0),
            peak_conns: AtomicU64::new(0),
            requests: Default::default(),
            faults: Default::default(),
            bad_requests: AtomicU64::new(0),
            panics: AtomicU64::new(0),
            served: AtomicU64::new(0),
            applied_us_total: AtomicU64::new(0),
            overshoot_max_us: AtomicU64::new(0),
            overshoot: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

impl Counters {
    /// Connections open right now.
    pub(super) fn active(&self) -> u64 {
        self.active.load(Relaxed)
    }

    /// A connection opened: counts it towards `active` and the peak.
    pub(super) fn opened(&self) {
        let now = self.active.fetch_add(1, Relaxed) + 1;
        self.peak_conns.fetch_max(now, Relaxed);
    }

    /// A connection counted by [`opened`](Self::opened) has closed (or its
    /// thread could not be started).
    pub(super) fn closed(&self) {
        self.active.fetch_sub(1, Relaxed);
    }

    /// A connection was admitted and its thread is running.
    pub(super) fn accepted(&self) {
        self.accepted.fetch_add(1, Relaxed);
    }

    /// A connection got `503 busy`.
    pub(super) fn refused(&self) {
        self.refused.fetch_add(1, Relaxed);
    }

    /// A connection got `503 out of descriptors`.
    pub(super) fn out_of_descriptors(&self) {
        self.out_of_descriptors.fetch_add(1, Relaxed);
    }

    /// A connection was closed for being idle.
    pub(super) fn idle_closed(&self) {
        self.idle_closed.fetch_add(1, Relaxed);
    }

    /// A connection was reset by the outage.
    pub(super) fn reset_by_outage(&self) {
        self.reset_by_outage.fetch_add(1, Relaxed);
    }

    /// A request line of `phase` was taken into service.
    pub(super) fn request(&self, phase: Phase) {
        // `Phase::index` is 0, 1 or 2 by construction.
        self.requests[phase.index() as usize].fetch_add(1, Relaxed);
    }

    /// A fault was injected.
    pub(super) fn fault(&self, fault: Fault) {
        self.faults[fault as usize].fetch_add(1, Relaxed);
    }

    /// A line was answered with `400`.
    pub(super) fn bad_request(&self) {
        self.bad_requests.fetch_add(1, Relaxed);
    }

    /// A connection thread panicked.
    pub(super) fn panicked(&self) {
        self.panics.fetch_add(1, Relaxed);
    }

    /// A service time ran to its end: `applied` really elapsed for a
    /// `nominal` latency.
    pub(super) fn served(&self, nominal: Duration, applied: Duration) {
        let micros = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        let overshoot = micros(applied.saturating_sub(nominal));
        self.overshoot[bucket_of(overshoot)].fetch_add(1, Relaxed);
        self.overshoot_max_us.fetch_max(overshoot, Relaxed);
        self.applied_us_total.fetch_add(micros(applied), Relaxed);
        self.served.fetch_add(1, Relaxed);
    }

    /// A plain copy of every counter.
    pub(super) fn snapshot(&self) -> ServerStats {
        let load = |a: &AtomicU64| a.load(Relaxed);
        let faults = Fault::ALL
            .into_iter()
            .map(|fault| {
                (
                    fault.as_str().to_owned(),
                    load(&self.faults[fault as usize]),
                )
            })
            .collect();
        ServerStats {
            accepted: load(&self.accepted),
            refused: load(&self.refused),
            out_of_descriptors: load(&self.out_of_descriptors),
            idle_closed: load(&self.idle_closed),
            reset_by_outage: load(&self.reset_by_outage),
            active: load(&self.active),
            peak_conns: load(&self.peak_conns),
            requests: PhaseCounts {
                get: load(&self.requests[Phase::Get.index() as usize]),
                head: load(&self.requests[Phase::Head.index() as usize]),
                body: load(&self.requests[Phase::Body.index() as usize]),
            },
            faults,
            bad_requests: load(&self.bad_requests),
            panics: load(&self.panics),
            service: self.service_snapshot(),
        }
    }

    fn service_snapshot(&self) -> ServiceStats {
        let buckets: Vec<u64> = self.overshoot.iter().map(|b| b.load(Relaxed)).collect();
        // The count is taken from the buckets themselves, so the percentiles
        // are consistent with the histogram they are read from.
        let count: u64 = buckets.iter().sum();
        let max = self.overshoot_max_us.load(Relaxed);
        let total = self.applied_us_total.load(Relaxed);
        ServiceStats {
            count,
            mean_applied_us: if count == 0 {
                0.0
            } else {
                total as f64 / count as f64
            },
            overshoot_p50_us: percentile(&buckets, count, 0.50, max),
            overshoot_p99_us: percentile(&buckets, count, 0.99, max),
            overshoot_max_us: max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::histogram::FINE_US;

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn percentiles_come_from_the_histogram() {
        let counters = Counters::default();
        // 98 requests 5 us late, one 1 ms late, one 50 ms late.
        for _ in 0..98 {
            counters.served(us(1_000), us(1_005));
        }
        counters.served(us(1_000), us(2_000));
        counters.served(us(1_000), us(51_000));
        let s = counters.snapshot().service;
        assert_eq!(s.count, 100);
        assert_eq!(s.overshoot_p50_us, FINE_US);
        assert_eq!(s.overshoot_p99_us, 1_000 + FINE_US);
        assert_eq!(s.overshoot_max_us, 50_000);
        let mean = (98.0 * 1_005.0 + 2_000.0 + 51_000.0) / 100.0;
        assert!((s.mean_applied_us - mean).abs() < 1e-9);
    }

    #[test]
    fn coarse_buckets_keep_percentiles_meaningful_under_overload() {
        let counters = Counters::default();
        // Half 20.5 ms late, half 80.5 ms late.
        for late in [20_500, 80_500] {
            for _ in 0..50 {
                counters.served(us(0), us(late));
            }
        }
        let s = counters.snapshot().service;
        assert_eq!((s.overshoot_p50_us, s.overshoot_p99_us), (21_000, 80_500));
    }

    #[test]
    fn overflow_reports_the_maximum() {
        let counters = Counters::default();
        counters.served(us(0), us(2_000_000));
        let s = counters.snapshot().service;
        assert_eq!(
            (s.overshoot_p50_us, s.overshoot_max_us),
            (2_000_000, 2_000_000)
        );
    }

    #[test]
    fn empty_stats_have_no_mean_and_list_every_fault() {
        let stats = Counters::default().snapshot();
        assert_eq!(stats.mean_service_time(), None);
        assert_eq!(stats.faults.len(), Fault::ALL.len());
        assert!(stats.to_string().contains("nothing served"));
    }

    #[test]
    fn peak_tracks_the_highest_active_count() {
        let counters = Counters::default();
        counters.opened();
        counters.opened();
        counters.closed();
        counters.opened();
        let stats = counters.snapshot();
        assert_eq!((stats.active, stats.peak_conns), (2, 2));
    }

    #[test]
    fn survives_a_json_round_trip() {
        let counters = Counters::default();
        counters.request(Phase::Head);
        counters.fault(Fault::Trickle);
        counters.served(us(10_000), us(10_070));
        let stats = counters.snapshot();
        let json = serde_json::to_string(&stats).expect("stats serialise");
        let back: ServerStats = serde_json::from_str(&json).expect("and parse back");
        assert_eq!(back, stats);
        assert_eq!(back.faults_of(Fault::Trickle), 1);
        assert_eq!(back.mean_service_time(), Some(us(10_070)));
    }
}
