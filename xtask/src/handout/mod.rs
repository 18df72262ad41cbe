//! The students' repository: `cargo xtask handout DIR`, and CI's check of
//! it, `cargo xtask check-handout`.
//!
//! A hand-out is a repository of its own that a teacher can give out as
//! it is. It holds:
//!
//! - the crates the book and the starters need: `testbed`, every stage
//!   (`0*`), `bench` (the racing chapter includes its code), `spec` (the
//!   behaviour suite, which grades chapter 8's capstone), and `docs/`;
//! - the starters, generated from `book/exercises/*` as in
//!   `cargo xtask starters`, as members of its workspace and its default
//!   members, so `cargo test` in it runs exactly the starters' tests;
//! - the repository's `Cargo.lock`, trimmed to what it uses, so students
//!   build the versions CI built;
//! - the book's sources without the teachers' pages (`book/src/teachers/`)
//!   and without any solution: a `<details>` block whose summary is
//!   "Solution" or "Speaker notes" (the teacher's script, answers
//!   included) is removed from every page, an include of
//!   `../exercises/NAME/...` becomes one of `../starters/NAME/...`, and a
//!   link to a teachers' page becomes plain text;
//! - a README for students, and one git commit.
//!
//! Not in it: `book/exercises/` (the solutions), `xtask/` and `.ci/` (the
//! project's own tooling), `target/`.
//!
//! The book for students is made in `book.rs`, the check in `check.rs`.

pub mod answers;
mod book;
mod check;
pub mod offline;
pub mod refs;
pub mod rustlings;
pub mod set;

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

pub use check::check;

use crate::BadInput;
use crate::starters;

/// Top-level folders copied as they are (with `0*`, the stages).
const COPIED: [&str; 4] = ["testbed", "bench", "spec", "docs"];
/// Top-level files copied as they are.
const FILES: [&str; 3] = ["ARCHITECTURE.md", ".gitignore", "rust-toolchain.toml"];
/// The book's pages that only the teachers' edition has.
const TEACHERS: &str = "teachers";

/// Who a hand-out is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edition {
    /// The exercises only.
    Students,
    /// The exercises and, in `solutions/`, their solutions (what
    /// `rustlings dev check` checks).
    Teachers,
}

/// `cargo xtask handout [--teachers] DIR`.
pub fn write(root: &Path, out: &Path, edition: Edition) -> Result<()> {
    if out.exists() && !out.is_dir() {
        // Once "Error: Not a directory (os error 20)", naming no path.
        return Err(BadInput(format!(
            "{} is a file, not a folder: the hand-out is a folder of its own; choose a new or \
             empty folder",
            out.display()
        ))
        .into());
    }
    if out.exists() {
        let empty = std::fs::read_dir(out)?.next().is_none();
        if !empty && !out.join(".handout").exists() {
            return Err(BadInput(format!(
                "{} exists and is not a hand-out: choose a new or empty folder",
                out.display()
            ))
            .into());
        }
        std::fs::remove_dir_all(out)?;
    }
    std::fs::create_dir_all(out)?;
    std::fs::write(
        out.join(".handout"),
        "Made by `cargo xtask handout`; it may replace this folder.\n",
    )?;

    let mut stages = Vec::new();
    for entry in std::fs::read_dir(root)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.starts_with('0') && root.join(&name).join("Cargo.toml").is_file() {
            stages.push(name);
        }
    }
    stages.sort();
    for dir in COPIED.iter().map(|s| s.to_string()).chain(stages) {
        copy_tree(&root.join(&dir), &out.join(&dir))?;
    }
    for file in FILES {
        if root.join(file).is_file() {
            std::fs::copy(root.join(file), out.join(file))?;
        }
    }

    let places = set::book_order(root)?;
    std::fs::create_dir_all(out.join("exercises"))?;
    if edition == Edition::Teachers {
        std::fs::create_dir_all(out.join("solutions"))?;
    }
    for place in &places {
        let files = rustlings::files(root, &place.name)?;
        let file = format!("{}.rs", rustlings::ident(&place.name));
        std::fs::write(out.join("exercises").join(&file), files.exercise)?;
        if edition == Edition::Teachers {
            std::fs::write(out.join("solutions").join(&file), files.solution)?;
        }
    }
    std::fs::write(out.join("info.toml"), set::info_toml(root, &places, out)?)?;
    std::fs::write(out.join("Cargo.toml"), set::manifest(root, &places, out)?)?;
    std::fs::copy(root.join("Cargo.lock"), out.join("Cargo.lock"))?;
    starters::trim_lock(out)?;
    let ignore = std::fs::read_to_string(out.join(".gitignore")).unwrap_or_default();
    std::fs::write(
        out.join(".gitignore"),
        ignore + "# rustlings' record of your progress\n.rustlings-state.txt\n",
    )?;

    book::write(root, out)?;
    let names: Vec<String> = places.iter().map(|p| p.name.clone()).collect();
    std::fs::write(out.join("README.md"), readme(&names))?;
    refs::strip(out)?;
    commit(out)?;
    Ok(())
}

fn readme(exercises: &[String]) -> String {
    format!(
        "# async-ladder: the exercises\n\n\
         Asynchronous I/O in Rust, rung by rung, from a blocking client to futures\n\
         on an executor of our own, with a book that explains each rung. This repository is the\n\
         students' edition: the stages, the testbed they run against, the book, and\n\
         one file per exercise in `exercises/`, run by [rustlings](https://rustlings.rust-lang.org).\n\n\
         You need Linux, Rust (rustup installs the version `rust-toolchain.toml` names), a C\n\
         compiler (the results database compiles SQLite), rustlings, and about 8 GB of disk\n\
         for the build (`cargo test --workspace --no-run` here left 7.7 GB in `target/`). Then:\n\n\
         ```console\n\
         $ cargo run -p uring --bin check-setup   # can every chapter run here? a failed check says how to fix it\n\
         $ cargo install --locked rustlings\n\
         $ rustlings                      # the exercises, in the book's order\n\
         ```\n\n\
         Rustlings shows the first exercise and reruns its tests each time you save it:\n\
         write your code between a `// TODO:` line and its `// END TODO`, and only there.\n\
         Press `h` for a hint (the chapter and section to reread, and the questions), `l`\n\
         for the list, `n` for the next exercise once the tests pass. When tests fail the\n\
         way a known mistake does, lines starting `hint:` below them ask about it.\n\n\
         The book: `cargo install --locked mdbook && mdbook serve book --open`. A stage:\n\
         `cargo run -p sync` (the first). `cargo test --workspace` runs the stages' own tests.\n\n\
         The exercises: {}.\n",
        exercises
            .iter()
            .map(|n| format!("`{}`", n.replace('-', "_")))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Makes the hand-out a git repository with one commit, if git is there.
fn commit(out: &Path) -> Result<()> {
    let git = |args: &[&str]| {
        Command::new("git")
            .args([
                "-c",
                "user.name=async-ladder",
                "-c",
                "user.email=handout@invalid",
            ])
            .args(args)
            .current_dir(out)
            .output()
    };
    let Ok(init) = git(&["init", "--quiet"]) else {
        println!("git not found: the hand-out is a plain folder");
        return Ok(());
    };
    if !init.status.success() {
        bail!("git init failed: {}", String::from_utf8_lossy(&init.stderr));
    }
    for args in [
        &["add", "--all"][..],
        &["commit", "--quiet", "-m", "The async-ladder exercises"][..],
    ] {
        let output = git(args).context("cannot run git")?;
        if !output.status.success() {
            bail!(
                "git {} failed: {}",
                args[0],
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
    Ok(())
}

/// Copies a folder, without `target` folders or hidden files.
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
    {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name == "target" || name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            copy_tree(&path, &to.join(&*name))?;
        } else {
            std::fs::copy(&path, to.join(&*name))?;
        }
    }
    Ok(())
}
