//! `cargo xtask check-grade`: a made-up class of six, graded, and every
//! cell of its table checked.
//!
//! Grading is only trusted if it tells apart what a class really hands
//! in: a finished copy, an untouched one, known mistakes, code that does
//! not compile, code that never returns, code that ends the tests' process.
//! So the check makes one hand-out
//! (`cargo xtask handout`, the students' edition), copies it six times,
//! edits each copy as such a student would, grades the five with a short
//! limit, and requires:
//!
//! - `complete` (every region holds the solution's code): passed
//!   everywhere;
//! - `empty` (as handed out, plus a notes file): not started everywhere,
//!   the notes file flagged;
//! - `two-mistakes` (a known mistake in each of two exercises, and a line
//!   added outside their regions): failed in those two, the edited file
//!   flagged;
//! - `no-compile` (one exercise that does not compile, one solved): does
//!   not compile, its errors pointing at the student's own line too;
//!   passed;
//! - `hangs` (one exercise whose code parks its thread for ever, one whose
//!   `// END TODO` line is gone): hung, having cost no more than the limit
//!   and a little; markers broken;
//! - `exits` (one exercise whose code calls `std::process::exit(0)`, which
//!   ends its test binary with success before any test reports): failed.
//!
//! The complete copy grades every exercise, not a subset: building its 27
//! crates costs little beside the rest. Graded from cold (the exercises'
//! artifacts deleted, the stages built), the five copies' 32 crates built
//! in 20 s and the other four copies' 5 crates in 3 s (`cargo xtask grade
//! --limit 20` on `target/grade-check/class/*`, with and without
//! `complete`); running the complete copy's tests, doc tests included,
//! took 34 s more (the sum of its runs). The whole check took 87 s.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::copy::{Copy, fill};
use super::report::Cell;
use super::{Args, grade};
use crate::scratch::{Regions, fresh_dir};
use crate::starters::{EXERCISES, exercises};
use crate::{handout, mistakes};

/// The limit of the made-up class's runs: the hanging exercise costs this.
const LIMIT: u64 = 20;
/// What a hanging exercise may cost beyond the limit (listing its tests,
/// killing its processes).
const SLACK: Duration = Duration::from_secs(3);
/// The two exercises the made-up students work on, and the known mistake
/// of each that `two-mistakes` makes.
const FIRST: (&str, &str) = ("ch06-channel", "if-instead-of-loop");
const SECOND: (&str, &str) = ("ch01-deadline", "no-timeout");
/// Code that never returns, on the path every test of `SECOND` reaches.
const PARKS: &str = "        loop { std::thread::park(); }\n";
/// Code that ends the test binary, successfully, from inside a test.
const EXITS: &str = "        std::process::exit(0)\n";
/// Code that does not compile.
const NOT_RUST: &str = "        this is not Rust;\n";

/// `cargo xtask check-grade`.
pub fn check(root: &Path) -> Result<()> {
    let started = Instant::now();
    let base = root.join("target").join("grade-check");
    fresh_dir(&base)?;
    let handout = base.join("handout");
    handout::write(root, &handout, handout::Edition::Students)?;
    let class = base.join("class");
    std::fs::create_dir_all(&class)?;
    let students = [
        "complete",
        "empty",
        "two-mistakes",
        "no-compile",
        "hangs",
        "exits",
    ];
    for student in students {
        crate::cargo::run(
            Command::new("cp")
                .arg("-a")
                .arg(&handout)
                .arg(class.join(student)),
        )?;
    }
    let names = exercises(root)?;
    let solution = |name: &str| -> Result<Vec<String>> {
        Ok(Regions::find(&root.join(EXERCISES).join(name))?.bodies())
    };
    let with = |name: &str, region: usize, body: &str| -> Result<Vec<Option<String>>> {
        let mut bodies: Vec<Option<String>> = solution(name)?.into_iter().map(Some).collect();
        let slot = bodies
            .get_mut(region - 1)
            .with_context(|| format!("{name} has no region {region}"))?;
        *slot = Some(body.to_owned());
        Ok(bodies)
    };
    let mistake = |(name, mistake): (&str, &str)| -> Result<Vec<Option<String>>> {
        let found = mistakes::load(root, name)?
            .into_iter()
            .find(|m| m.name == mistake)
            .with_context(|| format!("{name} has no known mistake {mistake}"))?;
        with(name, found.region, &found.body)
    };

    for name in &names {
        let bodies: Vec<Option<String>> = solution(name)?.into_iter().map(Some).collect();
        edit(&class.join("complete"), name, &bodies)?;
    }
    std::fs::write(class.join("empty/notes.txt"), "what I learned\n")?;
    edit(&class.join("two-mistakes"), FIRST.0, &mistake(FIRST)?)?;
    edit(&class.join("two-mistakes"), SECOND.0, &mistake(SECOND)?)?;
    let edited = class
        .join("two-mistakes")
        .join(Copy::exercise_path(SECOND.0));
    let text = std::fs::read_to_string(&edited)?;
    std::fs::write(&edited, text + "// A line added outside the regions.\n")?;
    edit(
        &class.join("no-compile"),
        FIRST.0,
        &with(FIRST.0, 1, NOT_RUST)?,
    )?;
    edit(
        &class.join("no-compile"),
        SECOND.0,
        &mistake_free(&solution(SECOND.0)?),
    )?;
    edit(&class.join("hangs"), SECOND.0, &with(SECOND.0, 1, PARKS)?)?;
    let broken = class.join("hangs").join(Copy::exercise_path(FIRST.0));
    let text = std::fs::read_to_string(&broken)?;
    let text: Vec<&str> = text.lines().filter(|l| l.trim() != "// END TODO").collect();
    std::fs::write(&broken, text.join("\n") + "\n")?;
    edit(&class.join("exits"), SECOND.0, &with(SECOND.0, 1, EXITS)?)?;

    let args = Args {
        limit: LIMIT,
        out: Some(base.join("results")),
        copies: students.iter().map(|s| class.join(s)).collect(),
    };
    let graded_at = Instant::now();
    let graded = grade(root, &args)?;
    let graded_in = graded_at.elapsed();
    print!("{}", graded.markdown());
    println!();
    for line in graded.summary() {
        println!("{line}");
    }

    let mut wrong = Vec::new();
    for (s, student) in graded.students.iter().enumerate() {
        for (e, name) in graded.exercises.iter().enumerate() {
            let cell = &graded.cells[s][e];
            let ok = match (student.as_str(), name.as_str()) {
                ("complete", _) => *cell == Cell::Passed,
                // The tests name the mistakes they recognise once the
                // exercises print hints; a name, if any, must be the one
                // made.
                ("two-mistakes", n) if n == FIRST.0 || n == SECOND.0 => {
                    let made = if n == FIRST.0 { FIRST.1 } else { SECOND.1 };
                    matches!(cell, Cell::Failed(names)
                        if names.is_empty() || names.iter().any(|m| m == made))
                }
                ("no-compile", n) if n == FIRST.0 => *cell == Cell::NoCompile,
                ("no-compile", n) if n == SECOND.0 => *cell == Cell::Passed,
                ("hangs", n) if n == SECOND.0 => *cell == Cell::Hung,
                ("hangs", n) if n == FIRST.0 => *cell == Cell::MarkersBroken,
                ("exits", n) if n == SECOND.0 => matches!(cell, Cell::Failed(_)),
                _ => *cell == Cell::NotStarted,
            };
            if !ok {
                wrong.push(format!("{student}/{name}: {cell}"));
            }
        }
    }
    let no_compile = base
        .join("results/no-compile")
        .join(FIRST.0)
        .join("results.json");
    let errors = std::fs::read_to_string(&no_compile)?;
    let own_file = format!("in the student's file: {}:", Copy::exercise_path(FIRST.0));
    if !errors.contains(&own_file) {
        wrong.push(format!(
            "no-compile/{}: the errors do not say `{own_file}`",
            FIRST.0
        ));
    }
    let flagged = |student: &str| {
        let s = graded.students.iter().position(|n| n == student);
        s.map(|s| graded.changed[s].clone()).unwrap_or_default()
    };
    let expected_changes = [
        ("complete", vec![]),
        ("empty", vec!["notes.txt".to_owned()]),
        ("two-mistakes", vec![Copy::exercise_path(SECOND.0)]),
        ("no-compile", vec![]),
        ("hangs", vec![Copy::exercise_path(FIRST.0)]),
        ("exits", vec![]),
    ];
    for (student, expected) in expected_changes {
        if flagged(student) != expected {
            wrong.push(format!(
                "{student} changed {:?} outside the regions, flagged {:?}",
                expected,
                flagged(student)
            ));
        }
    }
    let hangs = students.iter().position(|s| *s == "hangs").unwrap_or(0);
    let hung_for = graded.took[hangs][graded
        .exercises
        .iter()
        .position(|n| n == SECOND.0)
        .unwrap_or(0)];
    if hung_for > Duration::from_secs(LIMIT) + SLACK {
        wrong.push(format!(
            "the hanging exercise cost {:.1} s, more than its {LIMIT} s limit and {} s",
            hung_for.as_secs_f64(),
            SLACK.as_secs()
        ));
    }
    if !wrong.is_empty() {
        bail!(
            "grading the made-up class went wrong:\n{}",
            wrong.join("\n")
        );
    }
    println!(
        "every cell as expected; the hanging exercise cost {:.1} s (limit {LIMIT} s); graded in \
         {:.0} s, {:.0} s in all",
        hung_for.as_secs_f64(),
        graded_in.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The solution's code for every region.
fn mistake_free(bodies: &[String]) -> Vec<Option<String>> {
    bodies.iter().cloned().map(Some).collect()
}

/// Writes `bodies` into the regions of exercise `name` in `copy`.
fn edit(copy: &Path, name: &str, bodies: &[Option<String>]) -> Result<()> {
    let path = copy.join(Copy::exercise_path(name));
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("the hand-out has no {}", path.display()))?;
    std::fs::write(&path, fill(&text, bodies)?)?;
    Ok(())
}
