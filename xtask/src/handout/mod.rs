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

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

pub use check::check;

use crate::BadInput;
use crate::starters::{self, copy_starter, exercises};

/// Top-level folders copied as they are (with `0*`, the stages).
const COPIED: [&str; 4] = ["testbed", "bench", "spec", "docs"];
/// Top-level files copied as they are.
const FILES: [&str; 3] = ["ARCHITECTURE.md", ".gitignore", "rust-toolchain.toml"];
/// The book's pages that only the teachers' edition has.
const TEACHERS: &str = "teachers";

/// `cargo xtask handout DIR`.
pub fn write(root: &Path, out: &Path) -> Result<()> {
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

    let names = exercises(root)?;
    for name in &names {
        copy_starter(
            &root.join(starters::EXERCISES).join(name),
            &out.join(starters::DEFAULT_DIR).join(name),
        )
        .with_context(|| format!("exercise {name}"))?;
    }
    std::fs::write(out.join("Cargo.toml"), manifest(root, &names)?)?;
    std::fs::copy(root.join("Cargo.lock"), out.join("Cargo.lock"))?;
    starters::trim_lock(out)?;

    book::write(root, out)?;
    std::fs::write(out.join("README.md"), readme(&names))?;
    refs::strip(out)?;
    commit(out)?;
    Ok(())
}

/// The hand-out's workspace manifest: the repository's, with its members
/// replaced by the crates the hand-out holds, the starters as the default
/// members.
fn manifest(root: &Path, starters: &[String]) -> Result<String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let mut lines = Vec::new();
    let mut skipping = false;
    for line in manifest.lines() {
        if line.starts_with("members = [") || line.starts_with("default-members = [") {
            skipping = !line.trim_end().ends_with(']');
            if line.starts_with("members") {
                lines.push(
                    "members = [\"testbed\", \"0*\", \"bench\", \"spec\", \"book/starters/*\"]"
                        .into(),
                );
                lines.push(
                    "# `cargo test` runs the exercises; `cargo test --workspace` runs everything."
                        .into(),
                );
                lines.push("default-members = [".into());
                lines.extend(
                    starters
                        .iter()
                        .map(|n| format!("    \"book/starters/{n}\",")),
                );
                lines.push("]".into());
            }
            continue;
        }
        if skipping {
            skipping = !line.trim_start().starts_with(']');
            continue;
        }
        lines.push(line.to_owned());
    }
    Ok(lines.join("\n") + "\n")
}

fn readme(starters: &[String]) -> String {
    format!(
        "# async-ladder: the exercises\n\n\
         Asynchronous I/O in Rust, rung by rung, from a blocking client to futures\n\
         on an executor of our own, with a book that explains each rung. This repository is the\n\
         students' edition: the stages, the testbed they run against, the book, and\n\
         one crate per exercise in `book/starters/`.\n\n\
         You need Linux, Rust 1.95 or later, and a C compiler (the results database\n\
         compiles SQLite). Then:\n\n\
         ```console\n\
         $ cargo run -p sync          # the first stage, against an embedded slow server\n\
         $ cargo test                 # the exercises: every one fails until you solve it\n\
         $ cargo test -p ch01-deadline\n\
         $ cargo install --locked mdbook && mdbook serve book --open\n\
         ```\n\n\
         Each exercise's tests fail on a `todo!()` whose message is a question to\n\
         start from; the book's chapter says how long it should take, and you are\n\
         finished when its tests pass. `cargo test --workspace` also runs the\n\
         stages' own tests.\n\n\
         The exercises: {}.\n",
        starters
            .iter()
            .map(|n| format!("`{n}`"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_lists_the_starters_as_default_members() -> Result<()> {
        let root = crate::cargo::workspace_root();
        let text = manifest(&root, &["ch01-deadline".to_owned()])?;
        assert!(
            text.contains(
                "members = [\"testbed\", \"0*\", \"bench\", \"spec\", \"book/starters/*\"]"
            )
        );
        assert!(text.contains("default-members = [\n    \"book/starters/ch01-deadline\",\n]"));
        assert!(!text.contains("xtask") && !text.contains("book/exercises"));
        Ok(())
    }
}
