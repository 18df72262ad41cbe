//! `cargo xtask check-handout`: makes both copies of the hand-out in
//! cargo's target folder and checks what each reader will find in it.
//!
//! - The teachers' copy (`handout-teachers`): every exercise and solution
//!   builds, and `rustlings dev check` passes there: each exercise fails
//!   until it is solved, each solution passes and is formatted, and the
//!   `bin` list of `Cargo.toml` agrees with `info.toml`.
//! - The students' copy (`handout-check`): no solution in it, and
//!   `mdbook build` succeeds there with no line of any solution in its
//!   output, no teachers' block and no dead link.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::answers::{self, gather, solution_lines};
use super::{Edition, TEACHERS, offline, refs, write};
use crate::cargo;
use crate::figures::svg::escape;
use crate::starters::{self, exercises};

/// `cargo xtask check-handout`: makes both copies and checks them.
pub fn check(root: &Path) -> Result<()> {
    let target = cargo::target_dir(root)?;
    let names = exercises(root)?;

    let teachers = target.join("handout-teachers");
    write(root, &teachers, Edition::Teachers)?;
    println!("teachers' hand-out written to {}", teachers.display());
    // Its own target folder: cargo names a workspace member's artifacts
    // from its path *within* its workspace, so the hand-out's `testbed`
    // and the repository's would overwrite each other's in a shared one.
    let hand_out_target = target.join("handout-target");
    // Every file must build: rustlings counts an exercise that does not
    // compile as "not solved yet", which `dev check` wants of a starter.
    let build = cargo::command()
        .args(["build", "--offline", "--locked", "--bins", "--quiet"])
        .env("CARGO_TARGET_DIR", &hand_out_target)
        .current_dir(&teachers)
        .output()
        .context("cannot run cargo build")?;
    if !build.status.success() {
        bail!(
            "the hand-out's exercises or solutions do not build:\n{}",
            String::from_utf8_lossy(&build.stderr)
        );
    }
    let dev_check = Command::new("rustlings")
        .args(["dev", "check"])
        .env("CARGO_TARGET_DIR", &hand_out_target)
        .current_dir(&teachers)
        .output()
        .context("cannot run rustlings: install it with `cargo install --locked rustlings`")?;
    let log = String::from_utf8_lossy(&dev_check.stdout).into_owned()
        + &String::from_utf8_lossy(&dev_check.stderr);
    if !dev_check.status.success() {
        bail!("`rustlings dev check` fails on the teachers' hand-out:\n{log}");
    }
    println!(
        "rustlings dev check: the {} exercises build and fail, their solutions pass and are formatted",
        names.len()
    );

    let out = target.join("handout-check");
    write(root, &out, Edition::Students)?;
    println!("students' hand-out written to {}", out.display());
    let manifest = std::fs::read_to_string(out.join("Cargo.toml"))?;
    if out.join("solutions").exists() || manifest.contains("_sol\"") {
        bail!("the students' hand-out holds solutions");
    }
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
    answers::check(&out, &solution_lines(root, &out, &names)?)?;
    cites_only_what_it_holds(root, &out)?;
    offline_copy_builds_without_network(&out)
}

/// The hand-out's pages and comments cite no path or command it leaves
/// out (see [`refs`]).
fn cites_only_what_it_holds(root: &Path, out: &Path) -> Result<()> {
    let mut repository = Vec::new();
    for entry in std::fs::read_dir(root)? {
        repository.push(entry?.file_name().to_string_lossy().into_owned());
    }
    let dangling = refs::dangling(out, &repository)?;
    if !dangling.is_empty() {
        bail!(
            "the hand-out cites what it does not hold (rephrase the source, or mark the \
             passage <!-- repository-only --> ... <!-- /repository-only -->):\n  {}",
            dangling
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n  ")
        );
    }
    println!("its pages and comments cite only paths it holds, and no `cargo xtask`");
    Ok(())
}

/// The same hand-out made offline (`--offline`) resolves every crate from
/// its own `vendor/`, with an empty `CARGO_HOME` and no network.
fn offline_copy_builds_without_network(out: &Path) -> Result<()> {
    offline::make(out)?;
    offline::check(out)?;
    println!("--offline: cargo metadata resolves every crate from vendor/ with no network");
    Ok(())
}

/// The lines of solutions found in the built book (see
/// [`solution_lines`] for which lines count).
fn solution_leaks(root: &Path, out: &Path, names: &[String]) -> Result<Vec<String>> {
    let mut built = String::new();
    gather(&out.join("book/book"), &mut built)?;
    Ok(solution_lines(root, out, names)?
        .into_iter()
        .filter(|(_, line)| built.contains(&escape(line)) || built.contains(line.as_str()))
        .map(|(name, line)| format!("{name}: {line}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handout::answers::regions;

    #[test]
    fn a_solution_line_in_the_built_book_is_a_leak() -> Result<()> {
        let root = crate::cargo::workspace_root();
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
        std::fs::write(built.join("page.html"), escape(&line))?;
        let leaked = solution_leaks(&root, &out, std::slice::from_ref(name))?;
        std::fs::remove_dir_all(&out)?;
        assert!(clean.is_empty(), "{clean:?}");
        assert_eq!(leaked.len(), 1, "{leaked:?}");
        Ok(())
    }
}
