//! `cargo xtask`: the project's own tooling, in Rust so CI needs only cargo.
//!
//! - `cargo xtask check-book`: every `{{#include}}` in the book points at a
//!   file and anchor that exist and include something, then `mdbook build
//!   book` must print no warning.
//! - `cargo xtask book-stats`: words, code blocks and code lines per page,
//!   includes expanded (what the teachers' session plan is measured with).
//! - `cargo xtask starters [DIR]`: writes the exercise starters (the
//!   solutions with their marked regions replaced by `todo!()`) to DIR,
//!   `book/starters` by default, a folder a teacher can hand out.
//! - `cargo xtask check-exercises`: the committed starters match the
//!   solutions, every starter compiles, every starter *fails* its tests and
//!   every solution passes them; then every known mistake
//!   (`book/exercises/*/mistakes/`) fails at least one test, and the
//!   teachers' page of mistakes is up to date.
//! - `cargo xtask mistakes [NAME...]`: runs the known mistakes of every
//!   exercise (or of those named), prints the tests that catch each, and
//!   (for all) rewrites `book/src/teachers/mistakes.md`.
//! - `cargo xtask mutants`: cargo-mutants over the exercises' marked
//!   regions (installed first if missing); too slow for CI.
//! - `cargo xtask handout DIR`: writes the students' repository (stages,
//!   testbed, starters as workspace members, a `Cargo.lock`, the book
//!   without solutions); `cargo xtask check-handout` makes one and checks
//!   that its tests fail only in the starters and its book shows no
//!   solution.
//! - `cargo xtask figures`: reruns the stages that made the book's figures
//!   and rewrites them (timelines and their figure tables);
//!   `cargo xtask figures --check` reruns them and fails if a committed
//!   figure disagrees with its run or was edited by hand.
//!
//! Not here: anything a stage or a test needs at run time.

mod figures;
mod handout;
mod handout_check;
mod includes;
mod mistakes;
mod mutants;
mod starters;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    match args.first().map(String::as_str) {
        Some("check-book") => includes::check_book(&root),
        Some("book-stats") => includes::book_stats(&root),
        Some("starters") => {
            let out = args
                .get(1)
                .map_or_else(|| root.join(starters::DEFAULT_DIR), PathBuf::from);
            starters::write_all(&root, &out)?;
            println!("starters written to {}", out.display());
            Ok(())
        }
        Some("check-exercises") => starters::check(&root).and_then(|()| mistakes::check(&root)),
        Some("mistakes") => mistakes::main(&root, &args[1..]),
        Some("mutants") => mutants::main(&root),
        Some("handout") => match args.get(1) {
            Some(dir) => {
                handout::write(&root, Path::new(dir))?;
                println!("hand-out written to {dir}");
                Ok(())
            }
            None => bail!("usage: cargo xtask handout DIR"),
        },
        Some("check-handout") => handout::check(&root),
        Some("figures") => figures::main(&root, &args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask check-book | book-stats | starters [DIR] | check-exercises | mistakes [NAME...] | mutants | figures [--check [--release]] [NAME...] | handout DIR | check-handout"
            );
            std::process::exit(2)
        }
    }
}

/// The repository root: xtask lives one level below it.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is a folder inside the workspace")
        .to_path_buf()
}

/// Runs a command, failing with its name if it does not succeed.
fn run(command: &mut Command) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("cannot start {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed: {status}");
    }
    Ok(())
}
