//! `cargo xtask`: the project's own tooling, in Rust so CI needs only cargo.
//!
//! - `cargo xtask check-book`: every `{{#include}}` in the book points at a
//!   file and anchor that exist and include something, then `mdbook build
//!   book` must print no warning.
//! - `cargo xtask starters [DIR]`: writes the exercise starters (the
//!   solutions with their marked regions replaced by `todo!()`) to DIR,
//!   `book/starters` by default, a folder a teacher can hand out.
//! - `cargo xtask check-exercises`: the committed starters match the
//!   solutions, every starter compiles, every starter *fails* its tests and
//!   every solution passes them.
//! - `cargo xtask figures`: reruns the stages that made the book's figures
//!   and rewrites them (timelines and their figure tables);
//!   `cargo xtask figures --check` reruns them and fails if a committed
//!   figure disagrees with its run or was edited by hand.
//!
//! Not here: anything a stage or a test needs at run time.

mod figures;
mod includes;
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
        Some("starters") => {
            let out = args
                .get(1)
                .map_or_else(|| root.join(starters::DEFAULT_DIR), PathBuf::from);
            starters::write_all(&root, &out)?;
            println!("starters written to {}", out.display());
            Ok(())
        }
        Some("check-exercises") => starters::check(&root),
        Some("figures") => figures::main(&root, &args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask check-book | starters [DIR] | check-exercises | figures [--check [--release]] [NAME...]"
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
