//! Known mistakes: proof that an exercise's tests tell a wrong answer from
//! a right one.
//!
//! A starter that fails its tests proves little: `todo!()` fails anything.
//! What a teacher needs to know is that the *plausible* wrong answers fail
//! too: the `if` where a `loop` belongs, the lock left free for a moment,
//! the future polled after it returned. Each exercise keeps a list of them
//! beside its solution, one file per mistake:
//!
//! ```text
//! book/exercises/ch06-channel/mistakes/if-instead-of-loop.rs
//!
//!     //! Waits once with an `if`: another receiver may take the value first, ...
//!     if let Some(value) = ...
//! ```
//!
//! The first line is a `//!` comment (like every Rust file of the
//! repository, it starts by saying what it is): what the mistake is and why
//! it is wrong. The second, `//? <question>`, is the hint a learner who
//! made the mistake gets: a question that leads to the missing idea,
//! printed when their tests fail as this mistake's do (`testbed::hints`).
//! The rest replaces the solution's marked region (the code between
//! `// EXERCISE-BEGIN` and `// EXERCISE-END`). In an exercise with several
//! regions, a line `// region: N` after those picks the N-th (counted
//! from 1, in the order of the crate's `src/` files and of their lines);
//! the default is the first. The files live outside `src/`, `tests/` and `examples/`, so
//! cargo never compiles them as part of the crate.
//!
//! `cargo xtask mistakes` swaps each mistake into a scratch copy of its
//! exercise, builds it and runs its tests, and requires that at least one
//! test fails; it then writes the teachers' page that lists every mistake
//! with the tests that caught it, and from the same verdicts the table of
//! hints that the exercises' test binaries read
//! (`testbed/src/hints/table.rs`). `cargo xtask check-exercises` does the
//! same, and fails if the committed page or table differs from the one it
//! would write. The scratch copies form one workspace under `target/`, built
//! into the repository's own target folder: the stages are built once, and
//! each mistake recompiles only its exercise.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::scratch::{Regions, Scratch, copy_crate, fresh_dir};
use crate::starters::{self, EXERCISES, exercises};

pub(crate) mod hints;
pub(crate) mod libtest;
mod messages;
mod page;

pub use page::page;
use page::reconcile;

/// The folder of an exercise that holds its mistakes.
pub const DIR: &str = starters::MISTAKES;
/// The teachers' page generated from the mistakes.
pub const PAGE: &str = "book/src/teachers/mistakes.md";
/// The fewest known mistakes an exercise may have.
pub const AT_LEAST: usize = 3;
/// Where the scratch copies are built, under `target/`.
pub const SCRATCH: &str = "mistakes-check";
/// How long one test binary may run on a mistake before it counts as hung
/// (a hang is a failure a student sees too: the tests never finish).
const HUNG_AFTER: Duration = Duration::from_secs(60);

/// One wrong version of one region of an exercise.
#[derive(Debug, Clone)]
pub struct Mistake {
    /// The exercise (its folder and package name).
    pub exercise: String,
    /// The file name without `.rs`.
    pub name: String,
    /// What the mistake is and why it is wrong.
    pub comment: String,
    /// The question that leads a learner who made it to the missing idea
    /// (the `//? ` line), or empty while the file has none.
    pub hint: String,
    /// Which region it replaces, counted from 1.
    pub region: usize,
    /// The replacement, without its comment lines.
    pub body: String,
}

/// What the tests made of one mistake.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The mistake.
    pub mistake: Mistake,
    /// The tests that failed (or hung), by name; empty if it survived.
    pub caught_by: Vec<String>,
    /// The mistakes its failing test binaries named in their hint lines
    /// (`testbed::hints`); empty for a verdict taken from the page.
    pub hinted: Vec<String>,
}

/// `cargo xtask mistakes [NAME...]`: runs the mistakes of the named
/// exercises (all by default) and rewrites the teachers' page: whole when
/// it ran them all, else the named exercises' sections, the others kept
/// as the committed page has them.
pub fn main(root: &Path, args: &[String]) -> Result<()> {
    let all = exercises(root)?;
    if let Some(unknown) = args.iter().find(|a| !all.contains(a)) {
        return Err(crate::BadInput(format!(
            "no exercise named {unknown:?}: choose among {}",
            all.join(", ")
        ))
        .into());
    }
    let names = if args.is_empty() {
        all.clone()
    } else {
        args.to_vec()
    };
    let verdicts = run(root, &names)?;
    require_caught(&verdicts)?;
    hints::report(&verdicts)?;
    let verdicts = if args.is_empty() {
        verdicts
    } else {
        let committed = std::fs::read_to_string(root.join(PAGE)).unwrap_or_default();
        page::with_the_rest(root, &all, verdicts, &committed)?
    };
    std::fs::write(root.join(PAGE), page(&verdicts))?;
    std::fs::write(root.join(hints::TABLE), hints::table(&verdicts))?;
    println!("{PAGE} and {} written", hints::TABLE);
    Ok(())
}

/// The CI check: every assertion of the exercises' tests has a message,
/// every exercise has enough mistakes, every mistake is caught, and the
/// teachers' page says so.
pub fn check(root: &Path) -> Result<()> {
    messages::check(root)?;
    println!("every assertion in the exercises' tests says what it expected");
    hints::require_macro(root)?;
    println!("every test binary of the exercises asks for its hints");
    hints::require_questions(root)?;
    println!("every known mistake asks the learner a question");
    let started = Instant::now();
    let verdicts = run(root, &exercises(root)?)?;
    require_caught(&verdicts)?;
    hints::report(&verdicts)?;
    let committed = std::fs::read_to_string(root.join(PAGE)).unwrap_or_default();
    let (reconciled, notes) = reconcile(verdicts.clone(), &committed);
    if committed != page(&reconciled) {
        bail!("{PAGE} is out of date: run `cargo xtask mistakes` and commit it");
    }
    let table = std::fs::read_to_string(root.join(hints::TABLE)).unwrap_or_default();
    if table != hints::table(&reconciled) {
        bail!(
            "{} is out of date: run `cargo xtask mistakes` and commit it",
            hints::TABLE
        );
    }
    for note in notes {
        println!("note: {note}");
    }
    println!(
        "{} known mistakes in {} exercises, every one caught ({:.0} s); {PAGE} is up to date",
        verdicts.len(),
        exercises(root)?.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Fails, naming them, if any exercise has too few mistakes or any mistake
/// survived its tests.
fn require_caught(verdicts: &[Verdict]) -> Result<()> {
    let survivors: Vec<String> = verdicts
        .iter()
        .filter(|v| v.caught_by.is_empty())
        .map(|v| format!("{}/{}", v.mistake.exercise, v.mistake.name))
        .collect();
    if !survivors.is_empty() {
        bail!(
            "the tests pass with these known mistakes, so they cannot tell right from wrong \
             (strengthen the tests, not the mistakes): {}",
            survivors.join(", ")
        );
    }
    Ok(())
}

/// Loads, swaps in and tests every mistake of `names`, in order.
pub fn run(root: &Path, names: &[String]) -> Result<Vec<Verdict>> {
    let mut verdicts = Vec::new();
    let mut loaded = Vec::new();
    for name in names {
        let mistakes = load(root, name)?;
        if mistakes.len() < AT_LEAST {
            bail!(
                "{name} has {} known mistakes, fewer than {AT_LEAST}: add them as \
                 {EXERCISES}/{name}/{DIR}/<mistake>.rs",
                mistakes.len()
            );
        }
        loaded.push((name, mistakes));
    }
    let scratch = take_scratch(root)?;
    test_all(root, &scratch.dir, loaded, &mut verdicts)?;
    Ok(verdicts)
}

/// Swaps in and tests each loaded mistake, in order.
fn test_all(
    root: &Path,
    scratch: &Path,
    loaded: Vec<(&String, Vec<Mistake>)>,
    verdicts: &mut Vec<Verdict>,
) -> Result<()> {
    for (name, mistakes) in loaded {
        let crate_dir = scratch.join(name);
        let regions = Regions::find(&crate_dir)?;
        for mistake in mistakes {
            let (caught_by, hinted) = regions
                .with(mistake.region, &mistake.body, || {
                    libtest::test(root, scratch, name)
                })
                .with_context(|| format!("mistake {name}/{}", mistake.name))?;
            println!(
                "{name}/{}: caught by {}",
                mistake.name,
                if caught_by.is_empty() {
                    "NOTHING".to_owned()
                } else {
                    caught_by.join(", ")
                }
            );
            verdicts.push(Verdict {
                mistake,
                caught_by,
                hinted,
            });
        }
    }
    Ok(())
}

/// The mistakes of one exercise, sorted by file name.
pub fn load(root: &Path, exercise: &str) -> Result<Vec<Mistake>> {
    let dir = root.join(EXERCISES).join(exercise).join(DIR);
    let mut mistakes = Vec::new();
    if !dir.is_dir() {
        return Ok(mistakes);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    files.sort();
    for path in files {
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path)?;
        let name = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let Parsed {
            comment,
            hint,
            region,
            body,
        } = parse(&text).with_context(|| format!("in {}", path.display()))?;
        mistakes.push(Mistake {
            exercise: exercise.to_owned(),
            name,
            comment,
            hint,
            region,
            body,
        });
    }
    Ok(mistakes)
}

/// A mistake file, taken apart.
#[derive(Debug, PartialEq)]
struct Parsed {
    comment: String,
    hint: String,
    region: usize,
    body: String,
}

/// Splits a mistake file into its comment, its hint (the `//? ` line, if
/// any), its region number and its body.
fn parse(text: &str) -> Result<Parsed> {
    let mut lines = text.lines().peekable();
    let comment = lines
        .next()
        .and_then(|l| l.strip_prefix("//! "))
        .filter(|c| !c.trim().is_empty())
        .context("the first line must be a `//!` comment: what the mistake is and why it is wrong")?
        .trim()
        .to_owned();
    let mut hint = String::new();
    if let Some(question) = lines.peek().and_then(|l| l.strip_prefix("//?")) {
        hint = question.trim().to_owned();
        lines.next();
    }
    let mut region = 1;
    if let Some(n) = lines.peek().and_then(|l| l.strip_prefix("// region: ")) {
        region = n
            .trim()
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .context("`// region: N` needs a number from 1")?;
        lines.next();
    }
    let body: Vec<&str> = lines.collect();
    if body.iter().all(|l| l.trim().is_empty()) {
        bail!("no code after the comment");
    }
    Ok(Parsed {
        comment,
        hint,
        region,
        body: body.join("\n") + "\n",
    })
}

/// Takes the mistakes' scratch workspace and fills it with fresh copies of
/// every solution (see `make_scratch`).
pub fn take_scratch(root: &Path) -> Result<Scratch> {
    let scratch = Scratch::take(root, SCRATCH)?;
    make_scratch(root, &scratch.dir)?;
    Ok(scratch)
}

/// A scratch workspace of full copies of every exercise (solutions, not
/// starters), whose path dependencies point back into the repository.
fn make_scratch(root: &Path, scratch: &Path) -> Result<()> {
    fresh_dir(scratch)?;
    let names = exercises(root)?;
    for name in &names {
        copy_crate(&root.join(EXERCISES).join(name), &scratch.join(name))?;
    }
    std::fs::write(
        scratch.join("Cargo.toml"),
        starters::workspace_manifest(root, scratch, &names)?,
    )?;
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mistake_file_is_a_comment_an_optional_region_and_code() -> Result<()> {
        let parsed = parse("//! Uses if: wrong.\nif x {}\n")?;
        assert_eq!(
            (parsed.comment.as_str(), parsed.hint.as_str(), parsed.region),
            ("Uses if: wrong.", "", 1),
            "no hint yet: an empty one"
        );
        assert_eq!(parsed.body, "if x {}\n", "the code, without the comment");
        let parsed = parse("//! Off by one.\n//? where does it end?\n// region: 2\nx + 1\n")?;
        assert_eq!(
            (parsed.hint.as_str(), parsed.region, parsed.body.as_str()),
            ("where does it end?", 2, "x + 1\n"),
            "the hint on line 2, then the region"
        );
        assert!(parse("if x {}\n").is_err(), "no comment");
        assert!(parse("//! Only a comment.\n").is_err(), "no code");
        assert!(parse("//! Bad region.\n// region: 0\nx\n").is_err());
        Ok(())
    }
}
