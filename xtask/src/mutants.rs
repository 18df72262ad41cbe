//! `cargo xtask mutants`: mutation testing of the exercises with the
//! ecosystem's tool, cargo-mutants, over the marked regions only.
//!
//! The known mistakes (`cargo xtask mistakes`) are the wrong answers a
//! teacher expects; cargo-mutants finds the ones nobody thought of: it
//! replaces a `<` by `<=`, a body by `Default::default()`, deletes a `!`,
//! and reruns the tests each time. A mutant the tests miss is either a
//! hole in the tests or a change that cannot alter behaviour.
//!
//! Only the code a student writes counts: the scaffolding around a region
//! is not theirs. cargo-mutants can restrict itself to the lines a diff
//! adds (`--in-diff`), so this writes a diff that "adds" exactly the lines
//! inside every region, and runs cargo-mutants with it, in place, on a
//! scratch copy of the exercises (as `cargo xtask mistakes` makes one),
//! built in the repository's target folder. Every mutant is a build and
//! a test run, and installing cargo-mutants is a long build too, so CI
//! leaves it out; the teachers' plan records its last result.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::mistakes::take_scratch;
use crate::scratch::Regions;
use crate::starters::exercises;

/// What one mutant's build and tests may take before it counts as a
/// timeout (cargo-mutants' own default grows with the baseline).
const TIMEOUT_SECS: &str = "120";

/// `cargo xtask mutants`.
pub fn main(root: &Path) -> Result<()> {
    let installed = crate::cargo::command()
        .args(["mutants", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        println!("cargo-mutants is missing: installing it (cargo install --locked cargo-mutants)");
        crate::cargo::run(crate::cargo::command().args(["install", "--locked", "cargo-mutants"]))?;
    }
    let held = take_scratch(root)?;
    let scratch = &held.dir;
    let mut diff = String::new();
    for name in exercises(root)? {
        diff.push_str(&regions_diff(
            scratch,
            &Regions::find(&scratch.join(&name))?,
        )?);
    }
    std::fs::write(scratch.join("regions.diff"), &diff)?;
    let started = Instant::now();
    let status = crate::cargo::command()
        .args(["mutants", "--in-place", "--no-shuffle", "--in-diff"])
        .arg(scratch.join("regions.diff"))
        .args(["--timeout", TIMEOUT_SECS, "--output"])
        .arg(root.join("target"))
        .env("CARGO_TARGET_DIR", crate::cargo::target_dir(root)?)
        .current_dir(scratch)
        .status()
        .context("cannot run cargo mutants")?;
    let took = started.elapsed().as_secs_f64();
    let outcomes = root.join("target/mutants.out/outcomes.json");
    let summary = summarize(
        &std::fs::read_to_string(&outcomes)
            .with_context(|| format!("cargo mutants wrote no {}", outcomes.display()))?,
    )?;
    println!("cargo mutants over the exercises' regions, {took:.0} s: {summary}");
    // cargo-mutants exits 2 when a mutant was missed, 3 on a timeout: the
    // list above says which; anything else is a failure of the run itself.
    if !matches!(status.code(), Some(0 | 2 | 3)) {
        bail!("cargo mutants failed: {status}");
    }
    Ok(())
}

/// A diff that adds every line inside `regions`, relative to `scratch`:
/// what `--in-diff` needs to mutate those lines and no other.
fn regions_diff(scratch: &Path, regions: &Regions) -> Result<String> {
    let mut diff = String::new();
    let mut current: Option<&Path> = None;
    for (path, first, last) in regions.spans() {
        let text = std::fs::read_to_string(path)?;
        let relative = path
            .strip_prefix(scratch)
            .unwrap_or(path)
            .display()
            .to_string();
        if current != Some(path) {
            current = Some(path);
            writeln!(diff, "diff --git a/{relative} b/{relative}")?;
            writeln!(diff, "--- a/{relative}\n+++ b/{relative}")?;
        }
        let count = last + 1 - first;
        // Added lines only: the old side holds nothing, just before them.
        writeln!(diff, "@@ -{},0 +{first},{count} @@", first - 1)?;
        for line in text.lines().skip(first - 1).take(count) {
            writeln!(diff, "+{line}")?;
        }
    }
    Ok(diff)
}

/// Counts cargo-mutants' outcomes and lists the mutants it missed.
fn summarize(outcomes_json: &str) -> Result<String> {
    let outcomes: serde_json::Value = serde_json::from_str(outcomes_json)?;
    let count = |key: &str| outcomes[key].as_u64().unwrap_or_default();
    let mut summary = format!(
        "{} mutants: {} caught, {} missed, {} timed out, {} unviable",
        count("total_mutants"),
        count("caught"),
        count("missed"),
        count("timeout"),
        count("unviable")
    );
    for outcome in outcomes["outcomes"].as_array().into_iter().flatten() {
        if outcome["summary"] == "MissedMutant" {
            let mutant = &outcome["scenario"]["Mutant"];
            // The name says where: `file:line:column: replace ...`.
            write!(
                summary,
                "\n  missed: {}",
                mutant["name"].as_str().unwrap_or("?")
            )?;
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_adds_exactly_the_lines_inside_each_region() -> Result<()> {
        let dir = std::env::temp_dir().join(format!("xtask-mutants-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("x/src"))?;
        let solution =
            "fn f() -> u32 {\n    // EXERCISE-BEGIN\n    1 + 1\n    // EXERCISE-END\n}\n";
        std::fs::write(dir.join("x/src/lib.rs"), solution)?;
        let diff = regions_diff(&dir, &Regions::find(&dir.join("x"))?)?;
        std::fs::remove_dir_all(&dir)?;
        assert_eq!(
            diff,
            "diff --git a/x/src/lib.rs b/x/src/lib.rs\n--- a/x/src/lib.rs\n+++ b/x/src/lib.rs\n@@ -2,0 +3,1 @@\n+    1 + 1\n",
            "only the region's one line, at line 3, is added"
        );
        Ok(())
    }

    #[test]
    fn missed_mutants_are_listed() -> Result<()> {
        let json = r#"{"total_mutants": 2, "caught": 1, "missed": 1, "timeout": 0, "unviable": 0,
            "outcomes": [{"summary": "Success", "scenario": "Baseline"},
                         {"summary": "MissedMutant", "scenario": {"Mutant": {
                          "name": "x/src/lib.rs:3:5: replace < with <="}}}]}"#;
        let summary = summarize(json)?;
        assert!(
            summary.starts_with("2 mutants: 1 caught, 1 missed")
                && summary.contains("missed: x/src/lib.rs:3:5: replace < with <="),
            "{summary}"
        );
        Ok(())
    }
}
