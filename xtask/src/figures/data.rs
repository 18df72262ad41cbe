//! What a figure records of its runs (the `FIGURE-DATA` line of its
//! Markdown), and what the check asks of those records: the report's own
//! formulas, and the figures a fresh run must reproduce.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

/// The marker of the data line in a figure's Markdown.
pub(super) const DATA: &str = "FIGURE-DATA ";
/// Failure kinds that cost the server no service time (a refused connect,
/// a checkout that gave up): the report leaves them out of efficiency
/// (`testbed::outcome::ErrorKind::costs_no_service`).
const NO_SERVICE: [&str; 2] = ["refused", "pool_timeout"];
/// The relative tolerance of a formula check on unrounded figures.
const TOLERANCE: f64 = 1e-6;

/// What a figure's Markdown records of one run: the report's figures that
/// the tables show, unrounded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct RunData {
    pub(super) label: String,
    pub(super) stage: String,
    pub(super) items: u64,
    pub(super) ok: u64,
    pub(super) failed: u64,
    pub(super) errors: BTreeMap<String, u64>,
    /// What the server injected, by kind (`None` with an external server).
    #[serde(default)]
    pub(super) expected_errors: Option<BTreeMap<String, u64>>,
    pub(super) lost: u64,
    pub(super) wrong: u64,
    pub(super) conns: u64,
    pub(super) db_connections: u64,
    pub(super) server_peak_conns: Option<u64>,
    pub(super) phases: u32,
    pub(super) lines_per_item: f64,
    pub(super) mean_service_ms: f64,
    pub(super) elapsed_s: f64,
    pub(super) throughput: f64,
    pub(super) ideal_throughput: Option<f64>,
    pub(super) efficiency: Option<f64>,
    pub(super) p50_ms: f64,
    pub(super) p99_ms: f64,
    pub(super) max_ms: f64,
    /// The server's outage window (`--outage`), in ms since the run's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) outage_ms: Option<[f64; 2]>,
}

/// The data line of a figure's Markdown: `FIGURE-DATA <digest> <json>`.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Data {
    /// The report's keys when the figure was made.
    pub(super) keys: Vec<String>,
    pub(super) runs: Vec<RunData>,
}

impl Data {
    /// The data as it is written: its JSON, which the digest covers and
    /// the tables are rendered from.
    pub(super) fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain data serialises")
    }
}

impl RunData {
    pub(super) fn from_report(label: &str, r: &serde_json::Value) -> Result<RunData> {
        let u = |key: &str| {
            r[key]
                .as_u64()
                .with_context(|| format!("the report has no whole number `{key}`"))
        };
        let f = |key: &str| {
            r[key]
                .as_f64()
                .with_context(|| format!("the report has no number `{key}`"))
        };
        let latency = |key: &str| {
            r["latency_ms"][key]
                .as_f64()
                .with_context(|| format!("the report has no `latency_ms.{key}`"))
        };
        let errors = r["errors"]
            .as_object()
            .context("the report has no `errors` object")?
            .iter()
            .map(|(k, v)| Ok((k.clone(), v.as_u64().context("an error count")?)))
            .collect::<Result<_>>()?;
        Ok(RunData {
            label: label.to_owned(),
            stage: r["stage"].as_str().unwrap_or_default().to_owned(),
            items: u("items")?,
            ok: u("ok")?,
            failed: u("failed")?,
            errors,
            expected_errors: r["expected_errors"].as_object().map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                    .filter(|(_, n)| *n > 0)
                    .collect()
            }),
            lost: u("lost")?,
            wrong: u("wrong")?,
            conns: u("conns")?,
            db_connections: u("db_connections")?,
            server_peak_conns: r["server_peak_conns"].as_u64(),
            phases: u32::try_from(u("phases")?).context("phases")?,
            lines_per_item: f("lines_per_item")?,
            mean_service_ms: f("mean_service_ms")?,
            elapsed_s: f("elapsed_s")?,
            throughput: f("throughput")?,
            ideal_throughput: r["ideal_throughput"].as_f64(),
            efficiency: r["efficiency"].as_f64(),
            p50_ms: latency("p50")?,
            p99_ms: latency("p99")?,
            max_ms: latency("max")?,
            outage_ms: r["outage_ms"]
                .as_array()
                .and_then(|w| Some([w.first()?.as_f64()?, w.get(1)?.as_f64()?])),
        })
    }

    /// Items with an outcome: what throughput counts.
    fn done(&self) -> u64 {
        self.items - self.lost
    }

    /// Items the server worked on: what efficiency counts.
    fn served(&self) -> u64 {
        let no_service: u64 = NO_SERVICE
            .iter()
            .filter_map(|kind| self.errors.get(*kind))
            .sum();
        self.done().saturating_sub(no_service)
    }

    /// Requests in flight for Little's law: the concurrency, or fewer if
    /// fewer items reached the server.
    pub(super) fn in_flight(&self) -> u64 {
        self.conns.min(self.served()).max(1)
    }

    /// The figures a fresh run must reproduce exactly.
    ///
    /// An outage is a matter of time, not of the line: which items meet it
    /// depends on when they are sent, so with one the outcome counts (and
    /// how many items reached the server) are not compared; what must hold
    /// whatever the timing still is: the items, nothing lost, nothing
    /// wrong, the faults injected, the database connections.
    pub(super) fn deterministic(&self) -> Vec<(&'static str, String)> {
        if self.outage_ms.is_some() {
            return vec![
                ("items", self.items.to_string()),
                ("lost", self.lost.to_string()),
                ("wrong", self.wrong.to_string()),
                (
                    "injected by kind",
                    self.expected_errors
                        .as_ref()
                        .map_or("unknown".into(), kinds),
                ),
                ("database connections", self.db_connections.to_string()),
                ("phases", self.phases.to_string()),
            ];
        }
        vec![
            ("items", self.items.to_string()),
            ("ok", self.ok.to_string()),
            ("failed", self.failed.to_string()),
            ("failed by kind", kinds(&self.errors)),
            (
                "injected by kind",
                self.expected_errors
                    .as_ref()
                    .map_or("unknown".into(), kinds),
            ),
            ("lost", self.lost.to_string()),
            ("wrong", self.wrong.to_string()),
            ("in flight", self.in_flight().to_string()),
            ("database connections", self.db_connections.to_string()),
            ("phases", self.phases.to_string()),
            (
                "service times per item",
                format!("{:.2}", self.lines_per_item),
            ),
        ]
    }

    /// The report's formulas, applied to its own figures: what a hand
    /// edit, or a report that counts two things two ways, breaks.
    pub(super) fn formula_errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        let close = |a: f64, b: f64| (a - b).abs() <= TOLERANCE * a.abs().max(b.abs()).max(1.0);
        if self.elapsed_s > 0.0 {
            let throughput = self.done() as f64 / self.elapsed_s;
            if !close(self.throughput, throughput) {
                errors.push(format!(
                    "items/s is {:.3}, but {} items with an outcome in {:.6} s make {throughput:.3}",
                    self.throughput,
                    self.done(),
                    self.elapsed_s
                ));
            }
        }
        let per_item_s = self.lines_per_item * self.mean_service_ms / 1e3;
        if let Some(ideal) = self.ideal_throughput {
            let expected = self.in_flight() as f64 / per_item_s;
            if !close(ideal, expected) {
                errors.push(format!(
                    "the ideal is {ideal:.3}, but {} in flight / ({:.4} × {:.4} ms) makes {expected:.3}",
                    self.in_flight(),
                    self.lines_per_item,
                    self.mean_service_ms
                ));
            }
            if let Some(efficiency) = self.efficiency {
                let expected = self.served() as f64 / self.elapsed_s / ideal;
                if !close(efficiency, expected) {
                    errors.push(format!(
                        "efficiency is {efficiency:.5}, but {} served items / {:.6} s / ideal {ideal:.3} make {expected:.5}",
                        self.served(),
                        self.elapsed_s
                    ));
                }
            }
        }
        // A `wrong` row is a success with a wrong result (in neither `ok`
        // nor `failed`) or a failure the server never caused (in `failed`
        // too), so with wrong rows the counts only bracket the items.
        let counted = self.ok + self.failed + self.lost;
        let adds_up = if self.wrong == 0 {
            counted == self.items
        } else {
            counted <= self.items && counted + self.wrong >= self.items
        };
        if !adds_up {
            errors.push(format!(
                "ok {} + failed {} + lost {} (and wrong {}) cannot make the {} items",
                self.ok, self.failed, self.lost, self.wrong, self.items
            ));
        }
        if self.errors.values().sum::<u64>() != self.failed {
            errors.push(format!(
                "the failures by kind ({}) do not add up to failed {}",
                kinds(&self.errors),
                self.failed
            ));
        }
        errors
    }
}

/// The report's keys, with `latency_ms`'s (a stage's own `stage_stats`
/// are its business, not the report's format).
pub(super) fn report_keys(report: &serde_json::Value) -> Vec<String> {
    let mut keys: Vec<String> = report
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    if let Some(latency) = report["latency_ms"].as_object() {
        keys.extend(latency.keys().map(|k| format!("latency_ms.{k}")));
    }
    keys.sort();
    keys
}

pub(super) fn format_change(before: &[String], now: &[String]) -> String {
    let added: Vec<&String> = now.iter().filter(|k| !before.contains(k)).collect();
    let removed: Vec<&String> = before.iter().filter(|k| !now.contains(k)).collect();
    format!(
        "the report's format changed since the figure was made (keys added: {added:?}; removed: {removed:?})"
    )
}

/// What differs between a recorded run and a fresh one, deterministic
/// figures only.
pub(super) fn differences(recorded: &RunData, now: &RunData) -> Vec<String> {
    recorded
        .deterministic()
        .into_iter()
        .zip(now.deterministic())
        .filter(|((_, a), (_, b))| a != b)
        .map(|((name, a), (_, b))| format!("{name} {b}, the figure says {a}"))
        .collect()
}

/// Reads the `FIGURE-DATA` line of a figure's Markdown: the data, and
/// its JSON as written, once its digest is found to match.
pub(super) fn parse_data(markdown: &str) -> Result<(Data, String)> {
    let line = markdown
        .lines()
        .find_map(|l| l.strip_prefix(DATA))
        .context("it has no FIGURE-DATA line: it was not made by `cargo xtask figures`")?;
    let (sum, json) = line
        .split_once(' ')
        .context("its FIGURE-DATA line is damaged")?;
    if sum != digest(json) {
        bail!("its FIGURE-DATA line was edited by hand (the digest does not match)");
    }
    let data = serde_json::from_str(json).context("its FIGURE-DATA line is damaged")?;
    Ok((data, json.to_owned()))
}

/// A 64-bit FNV-1a digest, in hex: enough to notice an edit, not meant to
/// resist one.
pub(super) fn digest(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// `nak 3, ko 9`, or `none`.
pub(super) fn kinds(errors: &BTreeMap<String, u64>) -> String {
    if errors.is_empty() {
        return "none".into();
    }
    errors
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample() -> RunData {
        RunData {
            label: "roundrobin".into(),
            stage: "roundrobin".into(),
            items: 200,
            ok: 160,
            failed: 0,
            errors: BTreeMap::new(),
            expected_errors: Some(BTreeMap::new()),
            lost: 40,
            wrong: 0,
            conns: 4,
            db_connections: 4,
            server_peak_conns: Some(4),
            phases: 2,
            lines_per_item: 2.0,
            mean_service_ms: 5.05,
            elapsed_s: 0.53,
            throughput: 160.0 / 0.53,
            ideal_throughput: Some(4.0 / (2.0 * 0.00505)),
            efficiency: Some(160.0 / 0.53 / (4.0 / (2.0 * 0.00505))),
            p50_ms: 10.2,
            p99_ms: 14.4,
            max_ms: 15.0,
            outage_ms: None,
        }
    }

    #[test]
    fn an_outage_run_is_compared_only_on_what_timing_cannot_change() {
        let recorded = RunData {
            outage_ms: Some([60.0, 180.0]),
            ..sample()
        };
        // Other items met the outage this time: still the same figure.
        let now = RunData {
            ok: 150,
            failed: 10,
            errors: BTreeMap::from([("closed".to_owned(), 10)]),
            ..recorded.clone()
        };
        assert!(differences(&recorded, &now).is_empty());
        // But an item lost is a difference, outage or not.
        let lost = RunData {
            lost: 41,
            ..recorded.clone()
        };
        assert_eq!(differences(&recorded, &lost).len(), 1);
    }

    #[test]
    fn formulas_hold_for_a_true_report_and_catch_a_stale_one() {
        assert!(sample().formula_errors().is_empty());
        // The stale figure that counted lost items as done: 200 / 0.53.
        let stale = RunData {
            throughput: 379.0,
            ..sample()
        };
        assert_eq!(stale.formula_errors().len(), 1);
    }

    #[test]
    fn wrong_rows_bracket_the_item_count() {
        // The sample's 200 items: 160 ok, 40 lost. Make 20 of the ok rows
        // successes with another item's result (chapter 8's reuse bug).
        let with_wrong = RunData {
            ok: 140,
            wrong: 20,
            ..sample()
        };
        let errors = with_wrong.formula_errors();
        assert!(
            !errors.iter().any(|e| e.contains("cannot make")),
            "{errors:?}"
        );
        // Without the wrong rows the same counts are 20 items short.
        let short = RunData {
            wrong: 0,
            ..with_wrong
        };
        assert!(
            short
                .formula_errors()
                .iter()
                .any(|e| e.contains("cannot make"))
        );
    }

    #[test]
    fn deterministic_differences_are_named() {
        let now = RunData {
            ok: 159,
            failed: 1,
            errors: BTreeMap::from([("timeout".to_owned(), 1)]),
            elapsed_s: 9.0,
            ..sample()
        };
        let found = differences(&sample(), &now);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].starts_with("ok 159"));
    }
}
