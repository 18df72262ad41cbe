//! The report as a table for people: what `Display` prints.
//!
//! One line per subject, numbers aligned, the stage's own figures under
//! them, then the notes and the problems. The JSON form is the contract for
//! programs (`Report::to_json`); this one is for reading.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use crate::duration::format_duration;

use super::Report;

impl fmt::Display for Report {
    /// The human-readable table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kinds = |map: &BTreeMap<String, u64>| {
            map.iter()
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            f,
            "{}: {} items in {}",
            self.stage,
            self.items,
            format_duration(Duration::from_secs_f64(self.elapsed_s))
        )?;
        writeln!(f, "  ok           {:>8}", self.ok)?;
        write!(f, "  failed       {:>8}", self.failed)?;
        if !self.errors.is_empty() {
            write!(f, "   ({})", kinds(&self.errors))?;
        }
        match &self.expected_errors {
            Some(expected) if !expected.is_empty() => {
                writeln!(f, "   the server injected: {}", kinds(expected))?
            }
            _ => writeln!(f)?,
        }
        write!(f, "  lost         {:>8}", self.lost)?;
        if !self.lost_ids.is_empty() {
            let ids: Vec<String> = self.lost_ids.iter().map(u64::to_string).collect();
            write!(
                f,
                "   (ids {}{})",
                ids.join(", "),
                ellipsis(self.lost, ids.len())
            )?;
        }
        writeln!(f)?;
        writeln!(f, "  wrong        {:>8}", self.wrong)?;
        for why in &self.wrong_rows {
            writeln!(f, "    {why}")?;
        }
        write!(f, "  throughput   {:>8.1} items/s", self.throughput)?;
        match (self.ideal_throughput, self.efficiency) {
            (Some(ideal), Some(efficiency)) => writeln!(
                f,
                "   ideal {ideal:.1} = {} in flight / ({} x {:.2} ms)   efficiency {:.1}%",
                self.conns.min(self.items).max(1),
                trim_float(self.lines_per_item),
                self.mean_service_ms,
                efficiency * 100.0
            )?,
            (Some(_), None) => writeln!(f, "   (no efficiency: {})", why_no_efficiency(self))?,
            (None, _) => writeln!(f, "   (zero latency: no ideal to compare with)")?,
        }
        writeln!(
            f,
            "  latency      p50 {:.2} ms   p99 {:.2} ms   max {:.2} ms",
            self.latency_ms.p50, self.latency_ms.p99, self.latency_ms.max
        )?;
        let peak = match (self.server_peak_conns, self.external_server) {
            (Some(n), _) => n.to_string(),
            (None, true) => "unknown (external server)".to_owned(),
            (None, false) => "unknown".to_owned(),
        };
        // What could be in flight: a run of 200 items never has 100,000
        // requests out, whatever `--conns` says.
        writeln!(
            f,
            "  connections  {} in flight, server peak {peak}, database {}",
            self.conns.min(self.items),
            self.db_connections
        )?;
        // Stage figures line up with the table above, or with their own
        // longest key when a stage has a longer one.
        let width = self
            .stage_stats
            .keys()
            .map(String::len)
            .max()
            .unwrap_or(0)
            .max(12);
        for (key, value) in &self.stage_stats {
            // A text figure prints as text, not as a quoted JSON string.
            match value {
                serde_json::Value::String(text) => writeln!(f, "  {key:<width$} {text}")?,
                other => writeln!(f, "  {key:<width$} {other}")?,
            }
        }
        for note in &self.notes {
            writeln!(f, "  note: {note}")?;
        }
        for lint in &self.lints {
            writeln!(f, "  warning: {lint}")?;
        }
        for problem in &self.problems {
            writeln!(f, "  problem: {problem}")?;
        }
        Ok(())
    }
}

/// `2` rather than `2.00`, but `1.93` as it is.
fn trim_float(x: f64) -> String {
    if (x - x.round()).abs() < 0.005 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

fn ellipsis(total: u64, shown: usize) -> &'static str {
    if total as usize > shown { ", ..." } else { "" }
}

/// Why a run with an ideal has no efficiency, in words: the line once sent
/// its reader to a problem that was not there.
fn why_no_efficiency(report: &Report) -> &'static str {
    if report.items == 0 {
        "the run had no items"
    } else if report.ok + report.failed == 0 {
        "no item was recorded"
    } else if !report.problems.is_empty() {
        "see the problem below"
    } else {
        "no item reached the server"
    }
}

/// The problem of a run in which no item got a SLOW/1 answer. When every
/// item timed out under a read timeout, the timeout is named, not the
/// server: a server slower than the timeout is not a broken one.
pub(super) fn no_answer(errors: &BTreeMap<String, u64>, facts: &super::RunFacts) -> String {
    let only_timeouts = errors.keys().all(|kind| kind == "timeout");
    match facts.read_timeout {
        Some(limit) if only_timeouts => format!(
            "no item got its reply within --read-timeout {} ({}): {}; give a longer \
             --read-timeout",
            format_duration(limit),
            super::kinds(errors),
            if facts.external_server {
                "the server answers more slowly than that, or not at all".to_owned()
            } else {
                format!(
                    "the embedded server answers more slowly than that (its service time is \
                     {} per line)",
                    format_duration(facts.mean_service)
                )
            }
        ),
        _ => format!(
            "no item reached a working SLOW/1 server ({}): check that a slow-server listens \
             there, and has room for this run",
            super::kinds(errors)
        ),
    }
}
