//! `cargo xtask check-handout`: makes a hand-out in `handout-check` in
//! cargo's target folder, and requires that `cargo test --offline` builds
//! it and fails in every starter and nowhere else, each time on a
//! `todo!()`; and that `mdbook build` succeeds there with no line of any
//! solution in its output.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::answers::{self, gather, solution_lines};
use super::{TEACHERS, offline, refs, write};
use crate::cargo;
use crate::figures::svg::escape;
use crate::starters::{self, exercises};

/// What every `todo!()` panics with.
const TODO: &str = "not yet implemented";

/// `cargo xtask check-handout`: makes a hand-out and checks what a student
/// will find in it.
pub fn check(root: &Path) -> Result<()> {
    let target = cargo::target_dir(root)?;
    let out = target.join("handout-check");
    write(root, &out)?;
    let names = exercises(root)?;
    println!("hand-out written to {}", out.display());

    // The hand-out's own lock, as a student gets it: nothing resolved anew.
    // Its own target folder: cargo names a workspace member's artifacts
    // from its path *within* its workspace, so the hand-out's `testbed`
    // and the repository's would overwrite each other's in a shared one
    // (and the repository's tests would run the hand-out's binaries).
    let test = cargo::command()
        .args(["test", "--offline", "--locked", "--no-fail-fast"])
        .env("CARGO_TARGET_DIR", target.join("handout-target"))
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
