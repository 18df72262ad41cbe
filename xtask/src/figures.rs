//! The book's figures are real runs, remade by one command:
//! `cargo xtask figures` (or `cargo xtask figures NAME` for one).
//!
//! Each figure is a stage binary run with `--timeline` and `--json`, as
//! written in `book/src/figures/NAME.cmd`; the
//! SVG goes to `book/src/figures/NAME.svg` and a small Markdown table of
//! the run's figures, with the exact command, to `NAME.md`, which the
//! chapter includes under the picture. Prose that quotes a number points at
//! that table, so remaking the figures remakes the numbers.
//!
//! Timings on a shared 2-core machine are noisy: remake the figures on a
//! quiet machine, all in one go, and read ratios rather than absolutes.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::run;

/// A figure: its file name, the binary and the arguments that make it.
struct Figure {
    name: String,
    bin: String,
    args: String,
}

/// Every figure in the book: each `book/src/figures/NAME.cmd` holds one
/// line, the binary and its arguments (`01-sync --items 40`). A chapter adds
/// a figure by adding its `.cmd` file; nothing here changes.
fn figures(dir: &Path) -> Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "cmd") {
            continue;
        }
        let text = std::fs::read_to_string(&path)?;
        let line = text.trim();
        let (bin, args) = line.split_once(' ').unwrap_or((line, ""));
        figures.push(Figure {
            name: path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            bin: bin.to_owned(),
            args: args.to_owned(),
        });
    }
    figures.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(figures)
}

/// Rebuilds the binaries in release mode and remakes the figures (all, or
/// the one named).
pub fn regenerate(root: &Path, only: Option<&str>) -> Result<()> {
    let dir = root.join("book/src/figures");
    let chosen: Vec<Figure> = figures(&dir)?
        .into_iter()
        .filter(|f| only.is_none_or(|name| f.name == name))
        .collect();
    if chosen.is_empty() {
        bail!("no figure named {only:?}");
    }
    run(Command::new("cargo")
        .args(["build", "--release", "--bins", "--quiet"])
        .current_dir(root))?;
    for figure in chosen {
        let svg = dir.join(format!("{}.svg", figure.name));
        let command = format!(
            "cargo run --release --bin {} -- {}",
            figure.bin, figure.args
        );
        // The caption under the picture is the command a reader would type,
        // not this binary's path and the --timeline and --json added here.
        let output = Command::new(root.join("target/release").join(&figure.bin))
            .args(figure.args.split_whitespace())
            .arg("--timeline")
            .arg(&svg)
            .arg("--caption")
            .arg(&command)
            .arg("--json")
            .output()
            .with_context(|| format!("cannot run {}", figure.bin))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let report: serde_json::Value = serde_json::from_str(stdout.trim())
            .with_context(|| format!("{} printed no JSON report:\n{stdout}", figure.bin))?;
        std::fs::write(
            dir.join(format!("{}.md", figure.name)),
            table(&command, &report),
        )?;
        println!("figure {}: {command}", figure.name);
    }
    Ok(())
}

/// The Markdown under a figure: the command, then the figures.
fn table(command: &str, r: &serde_json::Value) -> String {
    let num = |key: &str| r[key].as_f64().unwrap_or(f64::NAN);
    let errors = r["errors"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "none".into());
    let efficiency = r["efficiency"]
        .as_f64()
        .map_or("n/a".to_owned(), |e| format!("{:.0}%", e * 100.0));
    format!(
        "<p class=\"figure-command\"><code>{command}</code></p>\n\n\
         | items | ok | failed (by kind) | lost | wrong | elapsed | items/s | ideal | efficiency | p50 | p99 | in flight | DB conns |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|\n\
         | {} | {} | {} ({errors}) | {} | {} | {:.2} s | {:.0} | {:.0} | {efficiency} | {:.1} ms | {:.1} ms | {} | {} |\n",
        r["items"],
        r["ok"],
        r["failed"],
        r["lost"],
        r["wrong"],
        num("elapsed_s"),
        num("throughput"),
        num("ideal_throughput"),
        r["latency_ms"]["p50"].as_f64().unwrap_or(f64::NAN),
        r["latency_ms"]["p99"].as_f64().unwrap_or(f64::NAN),
        r["conns"],
        r["db_connections"],
    )
}
