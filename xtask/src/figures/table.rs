//! The Markdown of a figure: its data line, an anchor per figure for
//! prose to quote, a compact table, the full figures and the commands.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{Context, Result};

use super::data::{DATA, Data, RunData, digest, kinds};
use super::list::Figure;
use super::svg::thousands;

/// The whole Markdown of a figure, from its data's JSON (parsed back, so
/// a fresh figure and a committed one render from the same numbers).
pub(super) fn markdown(figure: &Figure, commands: &[String], json: &str) -> Result<String> {
    let data: Data = serde_json::from_str(json).context("its FIGURE-DATA line is damaged")?;
    let stacked = data.runs.len() > 1;
    let mut md = String::new();
    let _ = writeln!(
        md,
        "<!-- Made by `cargo xtask figures` from {name}.cmd: do not edit by hand.\n\
         `cargo xtask figures --check` compares it with a fresh run of the same command.",
        name = figure.name
    );
    let _ = writeln!(md, "{DATA}{} {json}", digest(json));
    // Anchors, for prose that quotes a figure: `efficiency`, or
    // `efficiency-2` for the second run of a stack.
    for (i, run) in data.runs.iter().enumerate() {
        let suffix = if stacked {
            format!("-{}", i + 1)
        } else {
            String::new()
        };
        for (name, value) in cells(run) {
            let _ = writeln!(
                md,
                "ANCHOR: {name}{suffix}\n{value}\nANCHOR_END: {name}{suffix}"
            );
        }
    }
    md.push_str("-->\n\n<div class=\"figure-table\">\n\n");
    let first = if stacked { "run" } else { "items" };
    let _ = writeln!(
        md,
        "| {first} | ok / failed / lost / wrong | elapsed | items/s | efficiency | p99 | in flight |"
    );
    md.push_str("|---|---|---:|---:|---:|---:|---:|\n");
    for run in &data.runs {
        let c: BTreeMap<&str, String> = cells(run).into_iter().collect();
        let first = if stacked {
            format!("{}, {} items", run.label, c["items"])
        } else {
            c["items"].clone()
        };
        let _ = writeln!(
            md,
            "| {first} | {} / {} / {} / {} | {} | {} | {} | {} | {} |",
            c["ok"],
            c["failed"],
            c["lost"],
            c["wrong"],
            c["elapsed"],
            c["throughput"],
            c["efficiency"],
            c["p99"],
            c["in-flight"]
        );
    }
    md.push_str("\n</div>\n\n<details class=\"figure-details\">\n");
    let _ = writeln!(
        md,
        "<summary>Every figure of {}</summary>\n",
        if stacked { "these runs" } else { "this run" }
    );
    // The full figures, one row per figure and one column per run, so the
    // table is as narrow as the runs are few.
    let header: Vec<String> = if stacked {
        data.runs.iter().map(|r| r.label.clone()).collect()
    } else {
        vec!["this run".into()]
    };
    let _ = writeln!(md, "| figure | {} |", header.join(" | "));
    let _ = writeln!(md, "|---|{}", "---:|".repeat(header.len()));
    let rows = full_rows();
    for (key, name) in rows {
        let values: Vec<String> = data
            .runs
            .iter()
            .map(|run| {
                cells(run)
                    .into_iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| v)
                    .unwrap_or_default()
            })
            .collect();
        let _ = writeln!(md, "| {name} | {} |", values.join(" | "));
    }
    md.push_str("\n</details>\n\n");
    for (i, command) in commands.iter().enumerate() {
        let label = if stacked {
            format!("{}: ", data.runs[i].label)
        } else {
            String::new()
        };
        let _ = writeln!(
            md,
            "<p class=\"figure-command\">{label}<code>{command}</code></p>"
        );
    }
    Ok(md)
}

/// The rows of the full table: (anchor, what the row says).
fn full_rows() -> [(&'static str, &'static str); 18] {
    [
        ("items", "items"),
        ("ok", "ok"),
        ("failed-by-kind", "failed (by kind)"),
        ("injected", "injected by the server (by kind)"),
        ("lost", "lost"),
        ("wrong", "wrong"),
        ("elapsed", "elapsed"),
        ("throughput", "items/s"),
        ("ideal", "ideal (Little's law)"),
        ("efficiency", "efficiency"),
        ("p50", "latency p50"),
        ("p99", "latency p99"),
        ("max", "latency max"),
        ("in-flight", "in flight"),
        ("server-peak", "server's peak of connections"),
        ("db-conns", "database connections"),
        ("lines-per-item", "service times per item"),
        ("mean-service", "mean service time"),
    ]
}

/// Every figure of a run as the tables print it, by anchor name.
fn cells(run: &RunData) -> Vec<(&'static str, String)> {
    let ms = |v: f64| format!("{v:.1} ms");
    vec![
        ("items", thousands(run.items as f64)),
        ("ok", thousands(run.ok as f64)),
        ("failed", thousands(run.failed as f64)),
        (
            "failed-by-kind",
            if run.errors.is_empty() {
                run.failed.to_string()
            } else {
                format!("{} ({})", run.failed, kinds(&run.errors))
            },
        ),
        (
            "injected",
            run.expected_errors
                .as_ref()
                .map_or("unknown (external server)".into(), kinds),
        ),
        ("lost", thousands(run.lost as f64)),
        ("wrong", thousands(run.wrong as f64)),
        ("elapsed", format!("{:.2} s", run.elapsed_s)),
        ("throughput", thousands(run.throughput)),
        (
            "ideal",
            run.ideal_throughput.map_or("none".into(), thousands),
        ),
        (
            "efficiency",
            run.efficiency
                .map_or("n/a".into(), |e| format!("{:.0}%", e * 100.0)),
        ),
        ("p50", ms(run.p50_ms)),
        ("p99", ms(run.p99_ms)),
        ("max", ms(run.max_ms)),
        ("in-flight", run.conns.to_string()),
        (
            "server-peak",
            run.server_peak_conns
                .map_or("unknown".into(), |n| n.to_string()),
        ),
        ("db-conns", run.db_connections.to_string()),
        ("lines-per-item", format!("{:.2}", run.lines_per_item)),
        ("mean-service", format!("{:.2} ms", run.mean_service_ms)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::data::tests::sample;
    use crate::figures::list::tests::figure;

    #[test]
    fn the_compact_table_has_seven_columns() {
        let data = Data {
            keys: vec![],
            runs: vec![sample()],
        };
        let md = markdown(&figure(), &["c".into()], &data.to_json()).expect("renders");
        let header = md
            .lines()
            .find(|l| l.starts_with("| items |"))
            .expect("a compact table");
        assert_eq!(header.matches('|').count() - 1, 7);
    }
}
