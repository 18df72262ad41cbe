//! The students' repository: `cargo xtask handout DIR`, and CI's check of
//! it, `cargo xtask check-handout`.
//!
//! A hand-out is a repository of its own that a teacher can give out as
//! it is. It holds:
//!
//! - the crates the book and the starters need: `testbed`, every stage
//!   (`0*`), `bench` (the racing chapter includes its code), and `docs/`;
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
//! The check makes a hand-out in `target/handout-check` and requires that
//! `cargo test --offline` builds it and fails in every starter and nowhere
//! else, each time on a `todo!()`; and that `mdbook build` succeeds there
//! with no line of any solution in its output.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::handout_check::{gather, solution_lines};
use crate::starters::{self, copy_starter, exercises};

/// Top-level folders copied as they are (with `0*`, the stages).
const COPIED: [&str; 3] = ["testbed", "bench", "docs"];
/// Top-level files copied as they are.
const FILES: [&str; 2] = ["ARCHITECTURE.md", ".gitignore"];
/// The book's pages that only the teachers' edition has.
const TEACHERS: &str = "teachers";
/// What every `todo!()` panics with.
const TODO: &str = "not yet implemented";

/// `cargo xtask handout DIR`.
pub fn write(root: &Path, out: &Path) -> Result<()> {
    if out.exists() {
        let empty = std::fs::read_dir(out)?.next().is_none();
        if !empty && !out.join(".handout").exists() {
            bail!(
                "{} exists and is not a hand-out: choose another folder",
                out.display()
            );
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

    book(root, out)?;
    std::fs::write(out.join("README.md"), readme(&names))?;
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
                lines
                    .push("members = [\"testbed\", \"0*\", \"bench\", \"book/starters/*\"]".into());
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

/// The book without its teachers' pages or any solution.
fn book(root: &Path, out: &Path) -> Result<()> {
    let from = root.join("book");
    let to = out.join("book");
    std::fs::create_dir_all(&to)?;
    std::fs::copy(from.join("book.toml"), to.join("book.toml"))?;
    copy_tree(&from.join("theme"), &to.join("theme"))?;
    copy_tree(&from.join("src"), &to.join("src"))?;
    let src = to.join("src");
    let teachers = src.join(TEACHERS);
    if teachers.exists() {
        std::fs::remove_dir_all(&teachers)?;
    }
    for page in markdown_pages(&src)? {
        let text = std::fs::read_to_string(&page)?;
        let student = if page.file_name().is_some_and(|n| n == "SUMMARY.md") {
            summary_for_students(&text)
        } else {
            page_for_students(&text)
        };
        std::fs::write(&page, student)?;
    }
    Ok(())
}

/// SUMMARY.md without the teachers' pages (and without a separator left
/// dangling at the end).
fn summary_for_students(text: &str) -> String {
    let mut lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains(&format!("]({TEACHERS}/")))
        .collect();
    while lines
        .last()
        .is_some_and(|l| l.trim().is_empty() || l.trim() == "---")
    {
        lines.pop();
    }
    lines.join("\n") + "\n"
}

/// A page without solutions: no "Solution" block, includes of solutions
/// turned into includes of starters, links to teachers' pages unlinked.
fn page_for_students(text: &str) -> String {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let opens = line.trim_start().starts_with("<details");
        let summary_here = line.contains("<summary>");
        let is_solution = crate::handout_check::teachers_only;
        let solution = opens
            && (if summary_here {
                is_solution(line)
            } else {
                lines.peek().is_some_and(|next| is_solution(next))
            });
        if solution {
            // Skip to the block's end; details do not nest in this book.
            for rest in lines.by_ref() {
                if rest.contains("</details>") {
                    break;
                }
            }
            continue;
        }
        out.push(unlink_teachers(
            &line.replace("../exercises/", "../starters/"),
        ));
    }
    out.join("\n") + "\n"
}

/// `[text](teachers/page.md)` becomes `text`.
fn unlink_teachers(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('[') {
        let after = &rest[start..];
        let Some(close) = after.find("](") else { break };
        let target = &after[close + 2..];
        let Some(end) = target.find(')') else { break };
        let link = &target[..end];
        if link.starts_with(&format!("{TEACHERS}/")) || link.contains(&format!("/{TEACHERS}/")) {
            out.push_str(&rest[..start]);
            out.push_str(&after[1..close]);
        } else {
            out.push_str(&rest[..start + close + 2 + end + 1]);
        }
        rest = &target[end + 1..];
    }
    out.push_str(rest);
    out
}

fn readme(starters: &[String]) -> String {
    format!(
        "# async-ladder: the exercises\n\n\
         Asynchronous I/O in Rust, rung by rung, from a blocking client to a fiber\n\
         scheduler, with a book that explains each rung. This repository is the\n\
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

fn markdown_pages(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            pages.extend(markdown_pages(&path)?);
        } else if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    Ok(pages)
}

/// `cargo xtask check-handout`: makes a hand-out and checks what a student
/// will find in it.
pub fn check(root: &Path) -> Result<()> {
    let out = root.join("target").join("handout-check");
    write(root, &out)?;
    let names = exercises(root)?;
    println!("hand-out written to {}", out.display());

    // The hand-out's own lock, as a student gets it: nothing resolved anew.
    // Its own target folder: cargo names a workspace member's artifacts
    // from its path *within* its workspace, so the hand-out's `testbed`
    // and the repository's would overwrite each other's in a shared one
    // (and the repository's tests would run the hand-out's binaries).
    let test = Command::new("cargo")
        .args(["test", "--offline", "--locked", "--no-fail-fast"])
        .env(
            "CARGO_TARGET_DIR",
            root.join("target").join("handout-target"),
        )
        .current_dir(&out)
        .output()
        .context("cannot run cargo test")?;
    let log =
        String::from_utf8_lossy(&test.stdout).into_owned() + &String::from_utf8_lossy(&test.stderr);
    let failed = failed_packages(&log).with_context(|| {
        format!(
            "`cargo test --offline` did not build the hand-out, or did not run its tests:\n{log}"
        )
    })?;
    let expected: BTreeSet<String> = names.iter().cloned().collect();
    if failed != expected {
        let passing: Vec<&String> = expected.difference(&failed).collect();
        let others: Vec<&String> = failed.difference(&expected).collect();
        bail!(
            "in the hand-out, `cargo test` must fail in every starter and nowhere else; \
             starters that passed: {passing:?}; other packages that failed: {others:?}\n{log}"
        );
    }
    if log.matches(TODO).count() < names.len() {
        bail!("the starters' tests do not all fail on a todo!():\n{log}");
    }
    println!(
        "cargo test --offline: builds; fails in the {} starters, on their todo!()s, and nowhere else",
        names.len()
    );

    let build = Command::new("mdbook")
        .arg("build")
        .arg(out.join("book"))
        .output()
        .context("cannot run mdbook (cargo install --locked mdbook)")?;
    let log = String::from_utf8_lossy(&build.stderr).into_owned()
        + &String::from_utf8_lossy(&build.stdout);
    if !build.status.success() || log.contains("ERROR") || log.contains("WARN") {
        bail!("mdbook build failed or warned in the hand-out:\n{log}");
    }
    let leaks = solution_leaks(root, &out, &names)?;
    if !leaks.is_empty() {
        bail!(
            "the hand-out's book shows solutions:\n  {}",
            leaks.join("\n  ")
        );
    }
    if out.join(starters::EXERCISES).exists() || out.join("book/book").join(TEACHERS).exists() {
        bail!("the hand-out holds the solutions or the teachers' pages");
    }
    println!("mdbook build: succeeds, and no line of any solution is in its output");
    crate::handout_check::check(
        &out,
        &crate::handout_check::solution_lines(root, &out, &names)?,
    )
}

/// The packages whose tests failed, from `cargo test --no-fail-fast`'s
/// summary (`-p NAME --lib`, ...); an error if nothing was tested.
fn failed_packages(log: &str) -> Result<BTreeSet<String>> {
    if log.contains("could not compile") || !log.contains("test result:") {
        bail!("nothing was tested");
    }
    let mut failed = BTreeSet::new();
    for line in log.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("`-p ")
            && let Some(name) = rest.split_whitespace().next()
        {
            failed.insert(name.trim_end_matches('`').to_owned());
        }
    }
    Ok(failed)
}

/// The lines of solutions found in the built book. A line counts only if
/// it is the solution's own: long enough to mean something, and nowhere in
/// the hand-out's sources (a line that is also in the starter or in a
/// stage reveals nothing).
fn solution_leaks(root: &Path, out: &Path, names: &[String]) -> Result<Vec<String>> {
    let mut built = String::new();
    gather(&out.join("book/book"), &mut built)?;
    Ok(solution_lines(root, out, names)?
        .into_iter()
        .filter(|(_, line)| built.contains(&escape_html(line)) || built.contains(line.as_str()))
        .map(|(name, line)| format!("{name}: {line}"))
        .collect())
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handout_check::regions;

    #[test]
    fn solution_blocks_go_and_includes_point_at_starters() {
        let page = "Intro.\n\n<details>\n<summary>Solution</summary>\n\n```rust\n{{#include ../exercises/x/src/lib.rs:exercise}}\n```\n\n</details>\n\n<details><summary>Solution</summary>\nmore\n</details>\n\n<details>\n<summary>Speaker notes</summary>\nkept\n</details>\n{{#include ../exercises/x/src/lib.rs:sorted}}\n";
        let student = page_for_students(page);
        assert!(!student.contains("Solution") && !student.contains("more"));
        assert!(!student.contains("Speaker notes") && !student.contains("kept"));
        assert!(student.contains("{{#include ../starters/x/src/lib.rs:sorted}}"));
        assert!(!student.contains("../exercises/"));
    }

    #[test]
    fn teachers_pages_leave_the_summary_and_links_to_them_go() {
        let summary = "- [One](one.md)\n\n---\n\n[Glossary](glossary.md)\n\n---\n\n[Plan](teachers/plan.md)\n[Solutions](teachers/solutions.md)\n";
        assert_eq!(
            summary_for_students(summary),
            "- [One](one.md)\n\n---\n\n[Glossary](glossary.md)\n"
        );
        assert_eq!(
            unlink_teachers("see [the plan](teachers/plan.md) and [one](one.md)."),
            "see the plan and [one](one.md)."
        );
    }

    #[test]
    fn failed_packages_come_from_cargo_s_summary() -> Result<()> {
        let log = "test result: FAILED. 0 passed; 2 failed\nerror: 2 targets failed:\n    `-p ch01-deadline --lib`\n    `-p ch02-respawn --test respawn`\n";
        let failed = failed_packages(log)?;
        assert_eq!(
            failed.into_iter().collect::<Vec<_>>(),
            ["ch01-deadline", "ch02-respawn"]
        );
        assert!(failed_packages("error: could not compile `x`").is_err());
        Ok(())
    }

    #[test]
    fn the_manifest_lists_the_starters_as_default_members() -> Result<()> {
        let root = crate::workspace_root();
        let text = manifest(&root, &["ch01-deadline".to_owned()])?;
        assert!(text.contains("members = [\"testbed\", \"0*\", \"bench\", \"book/starters/*\"]"));
        assert!(text.contains("default-members = [\n    \"book/starters/ch01-deadline\",\n]"));
        assert!(!text.contains("xtask") && !text.contains("book/exercises"));
        Ok(())
    }

    #[test]
    fn a_solution_line_in_the_built_book_is_a_leak() -> Result<()> {
        let root = crate::workspace_root();
        let out = std::env::temp_dir().join(format!("xtask-handout-{}", std::process::id()));
        let built = out.join("book/book");
        std::fs::create_dir_all(&built)?;
        let names = exercises(&root)?;
        let name = names.first().context("an exercise")?;
        let mut solution = String::new();
        gather(
            &root.join(starters::EXERCISES).join(name).join("src"),
            &mut solution,
        )?;
        let line = regions(&solution)
            .into_iter()
            .map(str::trim)
            .find(|l| l.len() >= 16 && !l.starts_with("//"))
            .context("a solution line")?
            .to_owned();
        std::fs::write(built.join("page.html"), "<p>nothing</p>")?;
        let clean = solution_leaks(&root, &out, std::slice::from_ref(name))?;
        std::fs::write(built.join("page.html"), escape_html(&line))?;
        let leaked = solution_leaks(&root, &out, std::slice::from_ref(name))?;
        std::fs::remove_dir_all(&out)?;
        assert!(clean.is_empty(), "{clean:?}");
        assert_eq!(leaked.len(), 1, "{leaked:?}");
        Ok(())
    }
}
