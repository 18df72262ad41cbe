//! The run's last step: what it came to, from the database and what is
//! known of the server.
//!
//! Here is also the one rule for a server that went away: the embedded
//! server's death is known (`harness/embedded.rs`), an external server's
//! is not, so after a run whose failures a vanished server would cause,
//! the harness knocks once. A server that no longer accepts a connection
//! went away during the run: the report says so as a problem (exit
//! status 1), with no efficiency, whatever the stage.
//!
//! Not here: verifying the rows (`crate::report`).

use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::cli::Settings;
use crate::duration::format_duration;
use crate::outcome::ErrorKind;
use crate::report::{Report, RunFacts};
use crate::server::{ServerConfig, ServerStats};
use crate::stage::{RunStats, Scenario, Stage};
use crate::store::Row;

use super::embedded::ServerEnd;

/// The longest the knock on an external server waits for its handshake.
const KNOCK_TIMEOUT: Duration = Duration::from_secs(1);

/// Everything the report is made of.
pub(super) struct Run<'a> {
    pub stage: &'a dyn Stage,
    pub settings: &'a Settings,
    pub scenario: &'a Scenario,
    pub stats: RunStats,
    pub elapsed: Duration,
    pub server_end: ServerEnd,
    pub config: &'a ServerConfig,
    pub server_started: Instant,
    /// Preflight's notes and the database's.
    pub notes: Vec<String>,
    pub rows: &'a [Row],
    pub db_connections: u64,
}

/// Verifies the rows and builds the report.
pub(super) fn report(run: Run<'_>) -> Report {
    let (server_stats, server_died) = match run.server_end {
        ServerEnd::Stopped(stats) => (Some(stats), None),
        ServerEnd::Died(how) => (None, Some(how)),
        ServerEnd::External => (None, gone(run.scenario.server, run.rows)),
    };
    let mut notes = run.notes;
    notes.extend(run.stats.notes().iter().cloned());
    if let Some(server_stats) = &server_stats {
        notes.extend(server_notes(server_stats, run.config));
    }
    let mean_service = service_for_ideal(
        server_stats
            .as_ref()
            .and_then(ServerStats::mean_service_time),
        run.settings.latency.mean(),
    );
    // With a dead server the faults it injected are not known: it may have
    // died before injecting them.
    let known = server_stats.is_some();
    let facts = RunFacts {
        concurrency: run.stats.concurrency(),
        elapsed: run.elapsed,
        mean_service,
        served_lines: server_stats.as_ref().map(|s| s.service.count),
        faults: known.then_some((run.config.faults, run.settings.seed)),
        server_peak_conns: server_stats.as_ref().map(|s| s.peak_conns),
        server_accepted: server_stats.as_ref().map(|s| s.accepted),
        db_connections: run.db_connections,
        notes,
        lints: run.stats.lints().to_vec(),
        stage_stats: run
            .stats
            .figures()
            .iter()
            .map(|(key, value)| ((*key).to_owned(), value.clone()))
            .collect(),
        external_server: run.settings.server.is_some(),
        server_died,
        read_timeout: run.scenario.read_timeout,
        outage: run.config.faults.outage().map(|outage| {
            let lead = run
                .scenario
                .epoch
                .saturating_duration_since(run.server_started);
            (
                outage.start.saturating_sub(lead),
                outage.end().saturating_sub(lead),
            )
        }),
        ..RunFacts::new(run.stage.name(), run.settings.phases)
    };
    Report::build(&run.scenario.items, run.rows, facts)
}

/// The mean service time Little's law is taken with: what the server
/// applied (the honest denominator), or the model's mean when nothing
/// was measured; and zero when the model asks for none. At `--latency 0`
/// the server still measures its own overhead around a sleep of nothing,
/// 1 to 20 µs on a busy machine, and an ideal taken from that (once
/// 434782608.7 items/s, efficiency 0.0%) compares the client with the
/// server's clock, not with a service time.
fn service_for_ideal(applied: Option<Duration>, nominal: Duration) -> Duration {
    if nominal.is_zero() {
        return Duration::ZERO;
    }
    applied.unwrap_or(nominal)
}

/// Whether the external server at `addr` went away during the run, and
/// how. Only asked when the rows give a reason: some item got an answer,
/// so the server was there, and some failed the way a vanished server
/// makes items fail (refused, closed, timed out, or waiting for a
/// connection). A clean run knocks on nobody's door. A run in which no
/// item got an answer already has its own problem ("no item reached a
/// working server").
fn gone(addr: SocketAddr, rows: &[Row]) -> Option<String> {
    let answered = rows.iter().any(|row| match &row.outcome {
        Ok(_) => true,
        Err(failure) => matches!(failure.kind, ErrorKind::Nak | ErrorKind::Ko),
    });
    let vanishing = rows.iter().any(|row| {
        row.outcome.as_ref().is_err_and(|failure| {
            matches!(
                failure.kind,
                ErrorKind::Refused
                    | ErrorKind::Closed
                    | ErrorKind::Timeout
                    | ErrorKind::PoolTimeout
            )
        })
    });
    if !(answered && vanishing) {
        return None;
    }
    TcpStream::connect_timeout(&addr, KNOCK_TIMEOUT)
        .err()
        .map(|e| format!("{addr} answered some requests, and now refuses connections ({e})"))
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
             refused connections and reset {} open connections",
            format_duration(outage.start),
            format_duration(outage.end()),
            stats.reset_by_outage
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_latency_has_no_service_time_whatever_the_server_measured() {
        let us = Duration::from_micros;
        assert_eq!(
            service_for_ideal(Some(us(3)), Duration::ZERO),
            Duration::ZERO
        );
        assert_eq!(service_for_ideal(Some(us(2_010)), us(2_000)), us(2_010));
        assert_eq!(service_for_ideal(None, us(2_000)), us(2_000));
    }
}
