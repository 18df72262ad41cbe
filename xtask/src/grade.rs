//! `cargo xtask grade COPY...`: a teacher grades a whole class in one
//! command.
//!
//! Each COPY is one student's copy of the hand-out (the student is the
//! folder's name). For every exercise, the code in the student's regions
//! is graded *against the solution's tests and `Cargo.toml`*, whatever the
//! copy's own now say ([`copy`]); all started exercises of all students
//! are built at once, in one scratch workspace ([`build`]); each
//! student's exercise then runs in processes of its own under a time
//! limit, so that an endless loop costs one limit and no more ([`run`]);
//! and the results are written as Exercism-style `results.json` files and
//! as the class's table ([`report`]). `cargo xtask check-grade` grades a
//! made-up class of six and checks every cell ([`check`]).
//!
//! ```no_run
//! # fn main() -> anyhow::Result<()> {
//! let root = xtask::cargo::workspace_root();
//! let args = xtask::grade::Args {
//!     limit: 60,
//!     out: None,
//!     copies: vec!["../ada".into(), "../bo".into()],
//! };
//! let class = xtask::grade::grade(&root, &args)?;
//! println!("{}", class.markdown());
//! # Ok(())
//! # }
//! ```

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;

pub mod build;
mod changes;
mod check;
pub mod copy;
pub mod report;
pub mod run;
mod verdicts;

pub use check::check;
use copy::{Copy, Work};
use report::{Class, Outcome};

use crate::BadInput;
use crate::scratch::{Regions, Scratch};
use crate::starters::EXERCISES;

/// Where the class's crates are built, under `target/`.
const SCRATCH: &str = "grade-scratch";
/// Where the results go by default, under the repository.
pub const DEFAULT_OUT: &str = "target/grade";

/// `cargo xtask grade`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The most one student's exercise may run, in seconds; then its
    /// processes are killed and the tests that had not finished count as
    /// hung.
    #[arg(long, default_value_t = 60, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
    /// Where to write the results (`<student>/<exercise>/results.json`,
    /// `class.md`, `class.html`); target/grade by default.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The students' copies, one folder each (the student is its name).
    #[arg(required = true, value_name = "COPY")]
    pub copies: Vec<PathBuf>,
}

/// `cargo xtask grade`: grades, writes the results, prints the table and
/// one summary line per exercise.
pub fn main(root: &Path, args: &Args) -> Result<()> {
    let started = Instant::now();
    let class = grade(root, args)?;
    print!("{}", class.markdown());
    println!();
    for line in class.summary() {
        println!("{line}");
    }
    let out = out_dir(root, args);
    eprintln!(
        "graded in {:.0} s; results in {}",
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

/// The files the results' folder holds besides one folder per student.
const OUT_FILES: [&str; 2] = ["class.md", "class.html"];

fn out_dir(root: &Path, args: &Args) -> PathBuf {
    args.out.clone().unwrap_or_else(|| root.join(DEFAULT_OUT))
}

/// Grades every copy of `args` and writes the results; the class's table.
pub fn grade(root: &Path, args: &Args) -> Result<Class> {
    let copies = args
        .copies
        .iter()
        .map(|dir| Copy::open(dir))
        .collect::<Result<Vec<_>>>()?;
    for (n, copy) in copies.iter().enumerate() {
        if OUT_FILES.contains(&copy.student.as_str()) {
            return Err(BadInput(format!(
                "a copy is named {}, as a file of the results is: rename its folder",
                copy.student
            ))
            .into());
        }
        if copies[..n].iter().any(|c| c.student == copy.student) {
            return Err(BadInput(format!(
                "two copies are named {}: each student's folder needs a name of its own",
                copy.student
            ))
            .into());
        }
    }
    // In the order the book asks for them, as the hand-out lists them.
    let names: Vec<String> = crate::handout::set::book_order(root)?
        .into_iter()
        .map(|place| place.name)
        .collect();
    let mut regions = Vec::new();
    for name in &names {
        regions.push(Regions::find(&root.join(EXERCISES).join(name))?.len());
    }

    // What each copy holds, and what it changed outside the regions.
    let mut class = Class {
        students: copies.iter().map(|c| c.student.clone()).collect(),
        exercises: names.clone(),
        ..Class::default()
    };
    let mut outcomes: Vec<Vec<Option<Outcome>>> = Vec::new();
    let mut jobs = Vec::new();
    for copy in &copies {
        let mut row = Vec::new();
        let mut changed = Vec::new();
        for (name, &count) in names.iter().zip(&regions) {
            let (work, outside) = copy.work(name, count)?;
            if outside {
                changed.push(Copy::exercise_path(name));
            }
            row.push(match work {
                Work::NotStarted => Some(Outcome::NotStarted),
                Work::MarkersBroken(why) => Some(Outcome::MarkersBroken(why)),
                Work::Started(bodies) => {
                    jobs.push(build::Job {
                        student: copy.student.clone(),
                        exercise: name.clone(),
                        bodies,
                        starts: copy.region_starts(name)?,
                    });
                    None
                }
            });
        }
        changed.extend(copy.other_changes(&names)?);
        changed.sort();
        changed.dedup();
        class.changed.push(changed);
        outcomes.push(row);
    }

    eprintln!(
        "grading {} copies × {} exercises: building {} crates...",
        copies.len(),
        names.len(),
        jobs.len()
    );
    let built_at = Instant::now();
    let scratch = Scratch::take(root, SCRATCH)?;
    let built = build::build(root, &scratch.dir, &jobs)?;
    eprintln!("built in {:.0} s", built_at.elapsed().as_secs_f64());

    let limit = Duration::from_secs(args.limit);
    let target_dir = crate::cargo::target_dir(root)?;
    for (job, (package, built)) in jobs.iter().zip(built) {
        let s = class.students.iter().position(|s| *s == job.student);
        let e = names.iter().position(|n| *n == job.exercise);
        let (Some(s), Some(e)) = (s, e) else { continue };
        let outcome = match built {
            build::Built::Failed(errors) => Outcome::NoCompile(errors),
            build::Built::Tests(binaries) => {
                let logs = scratch
                    .dir
                    .join("logs")
                    .join(&job.student)
                    .join(&job.exercise);
                let doc = run::DocTests {
                    package,
                    workspace: scratch.dir.clone(),
                    target_dir: target_dir.clone(),
                };
                let mut run = run::run(&binaries, Some(&doc), &logs, limit)?;
                // Paths name the exercise's files, not the scratch copy's
                // folder (doc tests are named by their file).
                run.rename_folder(&doc.package, &job.exercise);
                Outcome::Ran(run)
            }
        };
        let took = match &outcome {
            Outcome::Ran(run) => format!(" ({:.1} s)", run.took.as_secs_f64()),
            _ => String::new(),
        };
        eprintln!("{}/{}: {}{took}", job.student, job.exercise, outcome.cell());
        outcomes[s][e] = Some(outcome);
    }

    let out = out_dir(root, args);
    for (s, row) in outcomes.into_iter().enumerate() {
        let mut cells = Vec::new();
        let mut took = Vec::new();
        for (e, outcome) in row.into_iter().enumerate() {
            let outcome = outcome.unwrap_or(Outcome::NotStarted);
            let dir = out.join(&class.students[s]).join(&names[e]);
            std::fs::create_dir_all(&dir)?;
            std::fs::write(
                dir.join("results.json"),
                report::results_json(&outcome, args.limit),
            )?;
            cells.push(outcome.cell());
            took.push(match &outcome {
                Outcome::Ran(run) => run.took,
                _ => Duration::ZERO,
            });
        }
        class.cells.push(cells);
        class.took.push(took);
    }
    std::fs::write(out.join(OUT_FILES[0]), class.markdown())?;
    std::fs::write(out.join(OUT_FILES[1]), class.html())?;
    Ok(class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_named_as_a_results_file_is_bad_input() -> Result<()> {
        let copy = copy::tests::handed_out("named")?;
        let parent = std::env::temp_dir().join(format!("xtask-named-{}", std::process::id()));
        std::fs::create_dir_all(&parent)?;
        let named = parent.join("class.md");
        std::fs::rename(&copy, &named)?;
        let args = Args {
            limit: 1,
            out: None,
            copies: vec![named.clone()],
        };
        let result = grade(&crate::cargo::workspace_root(), &args);
        std::fs::remove_dir_all(&parent)?;
        let error = result.expect_err("a student named class.md");
        assert!(error.is::<BadInput>(), "{error}");
        Ok(())
    }

    #[test]
    fn two_copies_of_one_name_are_bad_input() -> Result<()> {
        let one = copy::tests::handed_out("same-a")?;
        let other = copy::tests::handed_out("same-b")?;
        // `other`'s folder, moved elsewhere; `one` takes its name.
        let twins = std::env::temp_dir().join(format!("xtask-twins-{}", std::process::id()));
        std::fs::create_dir_all(&twins)?;
        let twin = twins.join(other.file_name().unwrap_or_default());
        std::fs::rename(&other, &twin)?;
        let renamed = one.with_file_name(other.file_name().unwrap_or_default());
        std::fs::rename(&one, &renamed)?;
        let args = Args {
            limit: 1,
            out: None,
            copies: vec![renamed.clone(), twin.clone()],
        };
        let result = grade(&crate::cargo::workspace_root(), &args);
        std::fs::remove_dir_all(&renamed)?;
        std::fs::remove_dir_all(&twins)?;
        let error = result.expect_err("two students of one name");
        assert!(error.is::<BadInput>(), "{error}");
        assert!(
            error.to_string().contains("two copies are named"),
            "{error}"
        );
        Ok(())
    }
}
