//! The book's figures are real runs, remade by one command and checked by
//! another:
//!
//! - `cargo xtask figures [NAME...]` reruns the stage binaries (release
//!   builds) and rewrites `book/src/figures/NAME.svg` and `NAME.md`;
//! - `cargo xtask figures --check [--release] [NAME...]` reruns them and
//!   fails if a committed figure disagrees with its run (below).
//!
//! # A figure
//!
//! `book/src/figures/NAME.cmd` holds one run per line, `BIN ARGS`, or
//! `LABEL | BIN ARGS`; `#` starts a comment. A line `LABEL | @OTHER` reuses
//! the run of figure `OTHER`, so that two figures that show the same run
//! show the same numbers. One run makes a timeline; several make one
//! picture with the runs stacked on a shared time axis.
//!
//! `NAME.md`, which the chapter includes under the picture, holds:
//!
//! - a comment with the runs' figures as data (`FIGURE-DATA`, a digest
//!   then the JSON of the runs and of the report's keys when it was made),
//!   and each figure as an
//!   mdBook anchor, so prose can quote a number with
//!   `{{#include figures/NAME.md:efficiency}}` and never go stale;
//! - a compact table (seven columns at most, readable on a phone), the full
//!   figures in a collapsed block, and the command of each run.
//!
//! # What the check proves
//!
//! For each figure: the data's digest matches (no hand edit); the tables
//! are exactly what the data renders to (no hand edit); the timing figures
//! are what the report's own formulas give (throughput = items with an
//! outcome / elapsed; efficiency = items the server served / elapsed /
//! ideal; ideal = in flight / (service times per item × mean service
//! time)); the report's keys are those the figure was made with (else the
//! report's format changed: remake the figures); and a fresh run of the
//! same command gives the same deterministic figures: items, ok, failed by
//! kind, lost, wrong, in flight, database connections, phases and service
//! times per item. Timings are not compared with the fresh run: they are
//! noise on a shared machine. A fresh run that disagrees is run
//! twice more before the check fails, since a machine slow enough can turn
//! a reply into a timeout. The faults the server injected (by kind) are
//! compared too: they are a pure function of the seed.
//!
//! The check builds in the debug profile by default (what CI's tests have
//! built already); the deterministic figures do not depend on the profile.
//!
//! Timings on a shared 2-core machine are noisy: remake the figures on a
//! quiet machine, all in one go, and read ratios rather than absolutes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::run as run_command;

/// Where the figures live, relative to the repository root.
const DIR: &str = "book/src/figures";
/// Where runs keep their timeline data between two figures that share one.
const SCRATCH: &str = "target/figures";
/// The marker of the data line in a figure's Markdown.
const DATA: &str = "FIGURE-DATA ";
/// Failure kinds that cost the server no service time (a refused connect,
/// a checkout that gave up): the report leaves them out of efficiency
/// (`testbed::outcome::ErrorKind::costs_no_service`).
const NO_SERVICE: [&str; 2] = ["refused", "pool_timeout"];
/// How many fresh runs a figure gets before its differences count.
const ATTEMPTS: u32 = 3;
/// The relative tolerance of a formula check on unrounded figures.
const TOLERANCE: f64 = 1e-6;

/// A figure: its name and its runs.
#[derive(Debug, Clone)]
struct Figure {
    name: String,
    runs: Vec<Run>,
}

/// One run of a figure.
#[derive(Debug, Clone)]
struct Run {
    label: Option<String>,
    source: Source,
}

#[derive(Debug, Clone, PartialEq)]
enum Source {
    /// A stage binary and its arguments.
    Command { bin: String, args: Vec<String> },
    /// The (only) run of another figure.
    Figure(String),
}

/// What a figure's Markdown records of one run: the report's figures that
/// the tables show, unrounded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct RunData {
    label: String,
    stage: String,
    items: u64,
    ok: u64,
    failed: u64,
    errors: BTreeMap<String, u64>,
    /// What the server injected, by kind (`None` with an external server).
    #[serde(default)]
    expected_errors: Option<BTreeMap<String, u64>>,
    lost: u64,
    wrong: u64,
    conns: u64,
    db_connections: u64,
    server_peak_conns: Option<u64>,
    phases: u32,
    lines_per_item: f64,
    mean_service_ms: f64,
    elapsed_s: f64,
    throughput: f64,
    ideal_throughput: Option<f64>,
    efficiency: Option<f64>,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    /// The server's outage window (`--outage`), in ms since the run's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    outage_ms: Option<[f64; 2]>,
}

/// The data line of a figure's Markdown: `FIGURE-DATA <digest> <json>`.
#[derive(Debug, Serialize, Deserialize)]
struct Data {
    /// The report's keys when the figure was made.
    keys: Vec<String>,
    runs: Vec<RunData>,
}

impl Data {
    /// The data as it is written: its JSON, which the digest covers and
    /// the tables are rendered from.
    fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain data serialises")
    }
}

impl RunData {
    fn from_report(label: &str, r: &serde_json::Value) -> Result<RunData> {
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
    fn in_flight(&self) -> u64 {
        self.conns.min(self.served()).max(1)
    }

    /// The figures a fresh run must reproduce exactly.
    ///
    /// An outage is a matter of time, not of the line: which items meet it
    /// depends on when they are sent, so with one the outcome counts (and
    /// how many items reached the server) are not compared; what must hold
    /// whatever the timing still is: the items, nothing lost, nothing
    /// wrong, the faults injected, the database connections.
    fn deterministic(&self) -> Vec<(&'static str, String)> {
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
    fn formula_errors(&self) -> Vec<String> {
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

/// Every figure in the book: each `NAME.cmd` in the figures folder. A
/// chapter adds a figure by adding its `.cmd` file; nothing here changes.
fn figures(dir: &Path) -> Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "cmd") {
            continue;
        }
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path)?;
        let runs = parse_cmd(&text).with_context(|| format!("in {}", path.display()))?;
        figures.push(Figure { name, runs });
    }
    figures.sort_by(|a, b| a.name.cmp(&b.name));
    for figure in &figures {
        for run in &figure.runs {
            if let Source::Figure(other) = &run.source {
                match figures.iter().find(|f| &f.name == other) {
                    None => bail!(
                        "figure {} reuses {other}, which does not exist",
                        figure.name
                    ),
                    Some(f) if f.runs.len() != 1 || f.references().next().is_some() => bail!(
                        "figure {} reuses {other}, which is not a single run of its own",
                        figure.name
                    ),
                    Some(_) => {}
                }
            }
        }
    }
    Ok(figures)
}

/// The runs of a `.cmd` file.
fn parse_cmd(text: &str) -> Result<Vec<Run>> {
    let mut runs = Vec::new();
    for line in text.lines() {
        let line = line.split_once('#').map_or(line, |(code, _)| code).trim();
        if line.is_empty() {
            continue;
        }
        let (label, command) = match line.split_once('|') {
            Some((label, command)) => (Some(label.trim().to_owned()), command.trim()),
            None => (None, line),
        };
        let source = match command.strip_prefix('@') {
            Some(other) => Source::Figure(other.trim().to_owned()),
            None => {
                let mut words = command.split_whitespace().map(str::to_owned);
                let bin = words.next().context("a run line names a binary")?;
                Source::Command {
                    bin,
                    args: words.collect(),
                }
            }
        };
        runs.push(Run { label, source });
    }
    if runs.is_empty() {
        bail!("no run");
    }
    Ok(runs)
}

impl Figure {
    fn references(&self) -> impl Iterator<Item = &str> {
        self.runs.iter().filter_map(|run| match &run.source {
            Source::Figure(other) => Some(other.as_str()),
            Source::Command { .. } => None,
        })
    }
}

/// The figures named, with every figure that shares a run with one of
/// them: remaking one without the other would show two different runs
/// under one name. All of them when no name is given.
fn chosen<'a>(all: &'a [Figure], names: &[String]) -> Result<Vec<&'a Figure>> {
    for name in names {
        if !all.iter().any(|f| &f.name == name) {
            bail!("no figure named {name} (a .cmd file in {DIR})");
        }
    }
    let mut set: BTreeSet<&str> = if names.is_empty() {
        all.iter().map(|f| f.name.as_str()).collect()
    } else {
        names.iter().map(String::as_str).collect()
    };
    loop {
        let before = set.len();
        for figure in all {
            let refs: Vec<&str> = figure.references().collect();
            if set.contains(figure.name.as_str()) {
                set.extend(refs);
            } else if refs.iter().any(|r| set.contains(r)) {
                set.insert(&figure.name);
            }
        }
        if set.len() == before {
            break;
        }
    }
    // Figures of their own first, so a figure that reuses one finds it.
    let mut chosen: Vec<&Figure> = all
        .iter()
        .filter(|f| set.contains(f.name.as_str()))
        .collect();
    chosen.sort_by_key(|f| f.references().next().is_some());
    Ok(chosen)
}

/// The flags of `cargo xtask figures`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Checks the committed figures against fresh runs instead of
    /// rewriting them; fails if one disagrees or was edited by hand.
    #[arg(long)]
    pub check: bool,
    /// With --check, builds and runs release binaries instead of debug ones
    /// (remaking figures always uses release builds).
    #[arg(long)]
    pub release: bool,
    /// The figures to remake or check, by name (NAME.cmd in
    /// book/src/figures); all of them when none is given. A figure that
    /// shares a run with a named one comes along.
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
}

/// `cargo xtask figures [--check] [--release] [NAME...]`.
pub fn run(root: &Path, args: &Args) -> Result<()> {
    let check = args.check;
    let release = !check || args.release;
    let names = &args.names;
    let all = figures(&root.join(DIR))?;
    let chosen = chosen(&all, names)?;
    let profile = if release { "release" } else { "debug" };
    let mut build = Command::new("cargo");
    build.args([
        "build",
        "--quiet",
        "--bins",
        "--workspace",
        "--exclude",
        "bench",
    ]);
    build.args(["--exclude", "xtask"]).current_dir(root);
    if release {
        build.arg("--release");
    }
    run_command(&mut build)?;
    let bins = root.join("target").join(profile);
    let scratch = root.join(SCRATCH);
    std::fs::create_dir_all(&scratch)?;
    if check {
        check_all(root, &bins, &chosen)
    } else {
        regenerate(root, &bins, &scratch, &chosen)
    }
}

/// Remakes the chosen figures: their runs, pictures and tables.
fn regenerate(root: &Path, bins: &Path, scratch: &Path, chosen: &[&Figure]) -> Result<()> {
    let dir = root.join(DIR);
    for figure in chosen {
        let mut made = Vec::new();
        for (i, run) in figure.runs.iter().enumerate() {
            let json = match &run.source {
                Source::Command { .. } => {
                    let json = scratch.join(format!("{}-{}.json", figure.name, i + 1));
                    let report = execute(bins, run, Some(&json))?;
                    (json, report)
                }
                // The other figure was remade first (`chosen` orders them).
                Source::Figure(other) => {
                    let json = scratch.join(format!("{other}-1.json"));
                    let text = std::fs::read_to_string(&json)
                        .with_context(|| format!("figure {other} has not been run"))?;
                    let timeline: serde_json::Value = serde_json::from_str(&text)?;
                    (json, timeline["report"].clone())
                }
            };
            made.push(json);
        }
        let labels: Vec<String> = figure
            .runs
            .iter()
            .zip(&made)
            .map(|(run, (_, report))| label(run, report))
            .collect();
        let mut stack = Command::new(bins.join("stack-timelines"));
        stack
            .arg("--out")
            .arg(dir.join(format!("{}.svg", figure.name)));
        for ((json, _), label) in made.iter().zip(&labels) {
            stack.arg(format!("{}={label}", json.display()));
        }
        run_command(&mut stack)?;
        let keys = report_keys(&made[0].1);
        let runs = made
            .iter()
            .zip(&labels)
            .map(|((_, report), label)| RunData::from_report(label, report))
            .collect::<Result<Vec<_>>>()?;
        let commands = commands(figure, &all_commands(root)?)?;
        let text = markdown(figure, &commands, &Data { keys, runs }.to_json())?;
        std::fs::write(dir.join(format!("{}.md", figure.name)), text)?;
        println!("figure {}: {}", figure.name, commands.join("; "));
    }
    Ok(())
}

/// Checks the chosen figures against their committed Markdown and a fresh
/// run; every problem is listed before failing.
fn check_all(root: &Path, bins: &Path, chosen: &[&Figure]) -> Result<()> {
    let dir = root.join(DIR);
    let mut problems = Vec::new();
    let started = std::time::Instant::now();
    let commands_by_name = all_commands(root)?;
    for figure in chosen {
        let path = dir.join(format!("{}.md", figure.name));
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        let mut found = check_committed(figure, &committed, &commands_by_name);
        let data = parse_data(&committed).ok().map(|(data, _)| data);
        for (i, run) in figure.runs.iter().enumerate() {
            let Some(recorded) = data.as_ref().and_then(|d| d.runs.get(i)) else {
                break;
            };
            match &run.source {
                Source::Figure(other) => {
                    // The same run must show the same numbers in both.
                    let theirs = std::fs::read_to_string(dir.join(format!("{other}.md")))
                        .ok()
                        .and_then(|text| parse_data(&text).ok())
                        .and_then(|(d, _)| d.runs.into_iter().next());
                    let same = theirs.as_ref().is_some_and(|t| {
                        RunData {
                            label: recorded.label.clone(),
                            ..t.clone()
                        } == *recorded
                    });
                    if !same {
                        found.push(format!(
                            "run {} reuses figure {other}, but its figures differ from {other}.md's",
                            i + 1
                        ));
                    }
                }
                Source::Command { .. } => {
                    let label = recorded.label.clone();
                    let mut attempts = 0;
                    let differences = loop {
                        attempts += 1;
                        let report = execute(bins, run, None)?;
                        let now = RunData::from_report(&label, &report)?;
                        let differences = differences(recorded, &now);
                        if let Some(keys) = data.as_ref().map(|d| &d.keys)
                            && *keys != report_keys(&report)
                        {
                            found.push(format_change(keys, &report_keys(&report)));
                        }
                        // A busy machine can turn a slow reply into a
                        // timeout; give a quieter moment a chance.
                        if differences.is_empty() || attempts == ATTEMPTS {
                            break differences;
                        }
                    };
                    let timing = differences.iter().any(|d| d.contains("timeout"));
                    for d in differences {
                        found.push(format!("run {}: a fresh run gives {d}", i + 1));
                    }
                    if timing {
                        found.push(format!(
                            "run {}: ({ATTEMPTS} runs in a row; a machine too busy to answer within \
                             the read timeout turns slow replies into timeouts: if the injected \
                             faults agree, rerun the check when the machine is quieter)",
                            i + 1
                        ));
                    }
                }
            }
        }
        found.dedup();
        if found.is_empty() {
            println!("figure {}: ok", figure.name);
        } else {
            println!("figure {}: FAILED", figure.name);
            problems.extend(found.into_iter().map(|p| format!("{}: {p}", figure.name)));
        }
    }
    println!(
        "{} figures checked in {:.0} s",
        chosen.len(),
        started.elapsed().as_secs_f64()
    );
    if !problems.is_empty() {
        bail!(
            "the book's figures disagree with their runs:\n  {}\n\
             Remake them with `cargo xtask figures` (or `cargo xtask figures NAME`) and commit.",
            problems.join("\n  ")
        );
    }
    Ok(())
}

/// The checks that need no run: data present and undamaged, tables as the
/// data renders them, formulas that hold.
fn check_committed(
    figure: &Figure,
    committed: &str,
    commands_by_name: &BTreeMap<String, String>,
) -> Vec<String> {
    let (data, json) = match parse_data(committed) {
        Ok(found) => found,
        Err(e) => return vec![format!("{e:#}; remake it with `cargo xtask figures`")],
    };
    let mut found = Vec::new();
    if data.runs.len() != figure.runs.len() {
        found.push(format!(
            "it records {} runs, its .cmd has {}",
            data.runs.len(),
            figure.runs.len()
        ));
        return found;
    }
    match commands(figure, commands_by_name).and_then(|c| markdown(figure, &c, &json)) {
        Ok(expected) if expected != committed => {
            let line = expected
                .lines()
                .zip(committed.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| expected.lines().count().min(committed.lines().count()));
            found.push(format!(
                "its text is not what its data and .cmd make (first difference at line {}): \
                 edited by hand, or its .cmd changed",
                line + 1
            ));
        }
        Ok(_) => {}
        Err(e) => found.push(format!("{e:#}")),
    }
    for (i, run) in data.runs.iter().enumerate() {
        for error in run.formula_errors() {
            found.push(format!("run {}: {error}", i + 1));
        }
    }
    found
}

/// Runs one figure's command with `--json` (and `--timeline json`), and
/// returns its report. A run that lost items exits with 1 and still prints
/// its report, which is what a figure of a crash shows.
fn execute(bins: &Path, run: &Run, timeline: Option<&Path>) -> Result<serde_json::Value> {
    let Source::Command { bin, args } = &run.source else {
        bail!("a reused run is not executed");
    };
    let mut command = Command::new(bins.join(bin));
    command.args(args).arg("--json");
    if let Some(path) = timeline {
        command.arg("--timeline").arg(path);
    }
    let output = command
        .output()
        .with_context(|| format!("cannot run {bin}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim()).with_context(|| {
        format!(
            "{bin} {} printed no JSON report ({}):\n{stdout}{}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The command a reader types for each run of a figure.
fn commands(figure: &Figure, by_name: &BTreeMap<String, String>) -> Result<Vec<String>> {
    figure
        .runs
        .iter()
        .map(|run| match &run.source {
            Source::Command { bin, args } => Ok(reader_command(bin, args)),
            Source::Figure(other) => by_name
                .get(other)
                .cloned()
                .with_context(|| format!("figure {other} has no command of its own")),
        })
        .collect()
}

/// The command of every single-run figure, by name.
fn all_commands(root: &Path) -> Result<BTreeMap<String, String>> {
    Ok(figures(&root.join(DIR))?
        .into_iter()
        .filter_map(|f| match f.runs.as_slice() {
            [
                Run {
                    source: Source::Command { bin, args },
                    ..
                },
            ] => Some((f.name, reader_command(bin, args))),
            _ => None,
        })
        .collect())
}

fn reader_command(bin: &str, args: &[String]) -> String {
    format!("cargo run --release --bin {bin} -- {}", args.join(" "))
}

/// A run's label: the `.cmd`'s, else the stage's name.
fn label(run: &Run, report: &serde_json::Value) -> String {
    run.label
        .clone()
        .unwrap_or_else(|| report["stage"].as_str().unwrap_or("run").to_owned())
}

/// The report's keys, with `latency_ms`'s (a stage's own `stage_stats`
/// are its business, not the report's format).
fn report_keys(report: &serde_json::Value) -> Vec<String> {
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

fn format_change(before: &[String], now: &[String]) -> String {
    let added: Vec<&String> = now.iter().filter(|k| !before.contains(k)).collect();
    let removed: Vec<&String> = before.iter().filter(|k| !now.contains(k)).collect();
    format!(
        "the report's format changed since the figure was made (keys added: {added:?}; removed: {removed:?})"
    )
}

/// What differs between a recorded run and a fresh one, deterministic
/// figures only.
fn differences(recorded: &RunData, now: &RunData) -> Vec<String> {
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
fn parse_data(markdown: &str) -> Result<(Data, String)> {
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
fn digest(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The whole Markdown of a figure, from its data's JSON (parsed back, so
/// a fresh figure and a committed one render from the same numbers).
fn markdown(figure: &Figure, commands: &[String], json: &str) -> Result<String> {
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

/// `nak 3, ko 9`, or `none`.
fn kinds(errors: &BTreeMap<String, u64>) -> String {
    if errors.is_empty() {
        return "none".into();
    }
    errors
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A number rounded to a whole, grouped by three: `12,345`.
fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RunData {
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

    fn figure() -> Figure {
        Figure {
            name: "f".into(),
            runs: parse_cmd("02-fork --items 200").expect("a valid .cmd"),
        }
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
    fn a_hand_edited_number_is_caught() {
        let figure = figure();
        let commands = vec!["cargo run --release --bin 02-fork -- --items 200".to_owned()];
        let data = Data {
            keys: vec!["items".into()],
            runs: vec![sample()],
        };
        let md = markdown(&figure, &commands, &data.to_json()).expect("renders");
        let by_name = BTreeMap::new();
        assert_eq!(
            check_committed(&figure, &md, &by_name),
            Vec::<String>::new()
        );
        // In the table...
        let edited = md.replacen("| 14.4 ms |", "| 12.4 ms |", 1);
        assert_ne!(edited, md);
        assert!(!check_committed(&figure, &edited, &by_name).is_empty());
        // ...or in the data line.
        let edited = md.replacen("\"p99_ms\":14.4", "\"p99_ms\":12.4", 1);
        assert_ne!(edited, md);
        assert!(!check_committed(&figure, &edited, &by_name).is_empty());
    }

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

    #[test]
    fn cmd_files_have_labels_comments_and_references() -> Result<()> {
        let runs = parse_cmd("# two runs\nfast | 04-select --items 4 # note\n@other\n")?;
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].label.as_deref(), Some("fast"));
        assert_eq!(
            runs[0].source,
            Source::Command {
                bin: "04-select".into(),
                args: vec!["--items".into(), "4".into()]
            }
        );
        assert_eq!(runs[1].source, Source::Figure("other".into()));
        assert!(parse_cmd("# nothing\n").is_err());
        Ok(())
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

    #[test]
    fn numbers_are_grouped_by_three() {
        assert_eq!(thousands(1_905.4), "1,905");
        assert_eq!(thousands(12.0), "12");
    }
}
