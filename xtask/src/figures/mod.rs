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
//! A figure named in [`PAGES`] also gets `NAME.html`, the interactive
//! page of the same runs (`stack-timelines --out NAME.html`), which its
//! chapter embeds so that a reader can zoom into the run and scrub it.
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
//!
//! # Where things are
//!
//! - `list.rs`: the figures (`.cmd` files) and the commands of their runs;
//! - `stages.rs`: building the stage binaries and running one command;
//! - `data.rs`: what a figure records of its runs, and the report's
//!   formulas the check applies to it;
//! - `table.rs`: a figure's Markdown (data line, anchors, tables);
//! - `svg.rs`: its picture and its page, and the text primitives
//!   (thousands, escaping);
//! - `transcript.rs`: a console session the book shows (`NAME.console`,
//!   made into `NAME.txt`), run and checked like a figure;
//! - `make.rs` remakes figures, `check.rs` checks them; this file reads
//!   the command line and calls one or the other;
//! - `spec.rs`: the behaviour suite's figures (`spec-table`,
//!   `spec-traces`), printed by `runtime-spec` rather than made from stage
//!   runs, so without a `.cmd`; made and checked there.

mod check;
mod data;
pub mod list;
mod make;
mod spec;
mod stages;
pub mod svg;
mod table;
pub mod transcript;

use std::path::Path;

use anyhow::{Result, bail};

use crate::cargo;

/// Where the figures live, relative to the repository root.
const DIR: &str = "book/src/figures";
/// The figures that also get an interactive page, `NAME.html`: one run the
/// chapter discusses, for chapters 3, 4, 5 and 8, and chapter 10's two
/// pages of a loop gone wrong beside its fix.
pub const PAGES: &[&str] = &[
    "ch03-bimodal",
    "ch04-compare",
    "ch05-outage",
    "ch08-executor",
    "ch10-blocked",
    "ch10-spinning",
];

/// Whether the figure `name` gets a page ([`PAGES`]).
fn has_page(name: &str) -> bool {
    PAGES.contains(&name)
}

/// Where runs keep their timeline data between two figures that share one,
/// in cargo's target folder.
const SCRATCH: &str = "figures";

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
    /// book/src/figures, or the behaviour suite's spec-table and
    /// spec-traces); all of them when none is given. A figure that
    /// shares a run with a named one comes along.
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
}

/// `cargo xtask figures [--check] [--release] [NAME...]`.
pub fn run(root: &Path, args: &Args) -> Result<()> {
    let check = args.check;
    let release = !check || args.release;
    let names = &args.names;
    let all = list::figures(&root.join(DIR))?;
    let transcripts = transcript::list(&root.join(DIR))?;
    // A name is a figure's, a transcript's or one of the suite's figures
    // (which have no `.cmd`).
    let (spec_names, rest): (Vec<String>, Vec<String>) =
        names.iter().cloned().partition(|n| spec::is_spec(n));
    let (session_names, figure_names): (Vec<String>, Vec<String>) = rest
        .into_iter()
        .partition(|name| transcripts.iter().any(|t| &t.name == name));
    let chosen = if !names.is_empty() && figure_names.is_empty() {
        Vec::new()
    } else {
        list::chosen(&all, &figure_names)?
    };
    let spec_chosen = if !names.is_empty() && spec_names.is_empty() {
        Vec::new()
    } else {
        spec::chosen(&spec_names)
    };
    let sessions: Vec<&transcript::Transcript> = transcripts
        .iter()
        .filter(|t| names.is_empty() || session_names.contains(&t.name))
        .collect();
    let target = cargo::target_dir(root)?;
    let bins = stages::build(root, &target, release)?;
    let dir = root.join(DIR);
    if check {
        let spec_problems = spec::check(root, &bins, &spec_chosen);
        let problems = transcript::check(&dir, &bins, &sessions)?;
        let figures = if chosen.is_empty() {
            Ok(())
        } else {
            check::check_all(root, &bins, &chosen)
        };
        if !spec_problems.is_empty() {
            bail!(
                "the behaviour suite's figures disagree with a fresh run:\n  {}\n\
                 Remake them with `cargo xtask figures spec-table spec-traces` and commit.",
                spec_problems.join("\n  ")
            );
        }
        if !problems.is_empty() {
            bail!(
                "transcripts the binaries no longer print:\n  {}",
                problems.join("\n  ")
            );
        }
        if !sessions.is_empty() {
            println!(
                "transcripts: {} checked, each is what its session prints",
                sessions.len()
            );
        }
        figures
    } else {
        spec::make(root, &bins, &spec_chosen)?;
        let scratch = target.join(SCRATCH);
        std::fs::create_dir_all(&scratch)?;
        transcript::make(&dir, &bins, &sessions)?;
        if chosen.is_empty() {
            return Ok(());
        }
        make::regenerate(root, &bins, &scratch, &chosen)
    }
}
