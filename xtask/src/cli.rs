//! The command line of `cargo xtask`, parsed by clap.
//!
//! Each task is one variant of [`Task`] and one arm of [`Task::run`] that
//! calls the module doing the work; adding a task is adding both. clap
//! gives every task its `--help`, and refuses an unknown task, flag or
//! extra argument with exit status 2 *before* any task starts: a typo such
//! as `figures --chek` must not remake every figure, and
//! `starters --help` must not write starters into a folder named `--help`.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};

use crate::{
    figures, grade, handout, includes, layout, mistakes, mutants, quoted, starters, terms,
};

/// `cargo xtask`: the project's own tooling (book checks, exercise
/// starters, the students' hand-out, figures).
///
/// ```
/// use clap::Parser;
/// use xtask::cli::{Cli, Task};
///
/// let cli = Cli::try_parse_from(["xtask", "figures", "--check", "ch01-sync"])?;
/// let Task::Figures(args) = cli.task else { panic!("the figures task") };
/// assert!(args.check && !args.release);
/// assert_eq!(args.names, ["ch01-sync"]);
///
/// // A misspelled flag is a usage error: exit status 2, nothing run.
/// let typo = Cli::try_parse_from(["xtask", "figures", "--chek"]).unwrap_err();
/// assert_eq!(typo.exit_code(), 2);
/// # Ok::<(), clap::Error>(())
/// ```
#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about,
    long_about = None,
    // `cargo xtask` alone lists the tasks (on stderr, exit status 2).
    arg_required_else_help = true,
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub task: Task,
}

/// The tasks. The first line of each doc comment is its line in
/// `cargo xtask --help`; the rest is its own `--help`.
#[derive(Debug, Subcommand)]
pub enum Task {
    /// Checks that every measured number the prose types is its figure's,
    /// that every {{#include}} of the book resolves, then builds the book
    /// with mdbook, which must print no warning.
    ///
    /// Every include must name a file that exists and an anchor in it that
    /// brings in at least one non-blank line (mdBook itself silently
    /// includes nothing for a missing anchor). No glossary term is used,
    /// in reading order, before the chapter that defines it unless that
    /// first use links to its definition.
    CheckBook,
    /// Builds the book and loads every page in headless Chromium at 1280
    /// and 400 px: fails on what overflows its column, a table that
    /// scrolls at 1280 px, a word a table's edge cuts in half, wrapped
    /// diagrams, and figure text under 11 px or too faint.
    ///
    /// Skipped, with a line saying so, where Chromium is not installed.
    CheckLayout {
        /// The pages to check, by file name (`ch04-select.html`); every
        /// page when none is given.
        pages: Vec<String>,
    },
    /// Prints words, code blocks and code lines per page of the book,
    /// includes expanded (what the teachers' session plan is measured with).
    BookStats,
    /// Writes the exercise starters: the solutions in book/exercises with
    /// their marked regions replaced by todo!().
    Starters {
        /// The folder to write them to: new, empty, or one of starters
        /// written before (which is replaced); the committed copy,
        /// book/starters, when none is given.
        dir: Option<PathBuf>,
    },
    /// Checks that the committed starters are current, compile and fail
    /// their tests, and that every solution passes them; then that every
    /// known mistake (book/exercises/*/mistakes/) fails at least one test,
    /// every assertion has a message, and the teachers' page of mistakes is
    /// up to date.
    CheckExercises,
    /// Runs the known mistakes of every exercise (or of those named) and
    /// prints the tests that catch each; with no name, rewrites
    /// book/src/teachers/mistakes.md.
    Mistakes {
        /// The exercises whose mistakes to run (`ch06-channel`); every
        /// exercise when none is given.
        names: Vec<String>,
    },
    /// Mutation testing with cargo-mutants over the exercises' marked
    /// regions only (installed first if missing). Takes about five
    /// minutes: not part of CI.
    Mutants,
    /// Writes the students' repository, a rustlings exercise set: one file
    /// per exercise, info.toml, the stages and the testbed, a Cargo.lock,
    /// the book without solutions, one git commit.
    Handout {
        /// The folder to write it to: new, empty, or an earlier hand-out
        /// (which is replaced).
        dir: PathBuf,
        /// The teachers' copy: with the solutions, in `solutions/`, that
        /// `rustlings dev check` runs.
        #[arg(long)]
        teachers: bool,
        /// For a lab without internet: also the crates' sources
        /// (`cargo vendor` into DIR/vendor, with DIR/.cargo/config.toml
        /// pointing cargo there) and the book built (DIR/book/book).
        #[arg(long)]
        offline: bool,
    },
    /// Makes a hand-out in the target folder and checks that its tests fail
    /// only in the starters, that its book shows no solution, that its
    /// pages and comments cite no path or command it leaves out, and that
    /// made offline it resolves every crate with no network.
    CheckHandout,
    /// Grades a class: each student's copy of the hand-out, by the
    /// solutions' tests; writes results.json per student and exercise and
    /// the class's table (class.md, class.html), and prints the table.
    ///
    /// Only the code between each `// TODO:` and `// END TODO` counts; any
    /// other change since the hand-out's commit is listed in the table.
    /// Every started exercise of every student is built in one workspace,
    /// then run under the time limit.
    Grade(grade::Args),
    /// Grades a made-up class of six copies of a fresh hand-out (complete,
    /// empty, two known mistakes, one that does not compile, one that
    /// hangs, one that exits) and checks every cell of the table.
    CheckGrade,
    /// Reruns the stages that made the book's figures and rewrites them
    /// (with --check: fails if a committed figure disagrees with its run).
    Figures(figures::Args),
}

impl Task {
    /// Runs the task on the repository at `root`.
    pub fn run(self, root: &std::path::Path) -> Result<()> {
        match self {
            Task::CheckBook => {
                // The numbers first: they need no build.
                quoted::check_book(root)?;
                terms::check_book(root)?;
                includes::check_book(root)
            }
            Task::CheckLayout { pages } => layout::check(root, &pages),
            Task::BookStats => includes::book_stats(root),
            Task::Starters { dir } => {
                let out = dir.unwrap_or_else(|| root.join(starters::DEFAULT_DIR));
                starters::write_all(root, &out)?;
                println!("starters written to {}", out.display());
                Ok(())
            }
            Task::CheckExercises => {
                starters::check(root)?;
                mistakes::check(root)
            }
            Task::Mistakes { names } => mistakes::main(root, &names),
            Task::Mutants => mutants::main(root),
            Task::Handout {
                dir,
                teachers,
                offline,
            } => {
                let edition = if teachers {
                    handout::Edition::Teachers
                } else {
                    handout::Edition::Students
                };
                handout::write(root, &dir, edition)?;
                if offline {
                    handout::offline::make(&dir)?;
                }
                println!("hand-out written to {}", dir.display());
                Ok(())
            }
            Task::CheckHandout => handout::check(root),
            Task::Figures(args) => figures::run(root, &args),
            Task::Grade(args) => grade::main(root, &args),
            Task::CheckGrade => grade::check(root),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("xtask").chain(args.iter().copied()))
    }

    #[test]
    fn clap_s_own_consistency_checks_pass() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_task_has_a_help() {
        let tasks: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .filter(|name| name != "help")
            .collect();
        assert!(tasks.len() >= 7, "{tasks:?}");
        for task in tasks {
            let err = parse(&[&task, "--help"]).expect_err("--help stops the parse");
            assert_eq!(err.kind(), ErrorKind::DisplayHelp, "{task} --help");
        }
        let err = parse(&["--help"]).expect_err("--help stops the parse");
        assert_eq!(err.kind(), ErrorKind::DisplayHelp);
    }

    #[test]
    fn a_misspelled_flag_or_an_extra_argument_is_refused() {
        for args in [
            &["figures", "--chek"][..],
            &["check-book", "extra"],
            &["handout"],
            &["grade"],
            &["grade", "--limit", "soon", "../ada"],
            &["grade", "--limit", "0", "../ada"],
            &["starters", "a", "b"],
            &["figure"],
        ] {
            let err = parse(args).expect_err("refused");
            assert_eq!(err.exit_code(), 2, "{args:?}: {err}");
        }
    }

    #[test]
    fn the_commands_ci_and_the_docs_use_still_parse() {
        for args in [
            &["check-book"][..],
            &["check-layout"],
            &["check-layout", "ch04-select.html"],
            &["book-stats"],
            &["starters"],
            &["starters", "/tmp/starters"],
            &["check-exercises"],
            &["handout", "../ladder-students"],
            &["handout", "--offline", "../ladder-lab"],
            &["check-handout"],
            &["figures"],
            &["figures", "ch01-sync", "ch02-fork"],
            &["figures", "--check"],
            &["figures", "--check", "--release", "ch01-sync"],
            &["grade", "../ada", "../bo"],
            &["grade", "--limit", "20", "--out", "/tmp/class", "../ada"],
            &["check-grade"],
        ] {
            if let Err(e) = parse(args) {
                panic!("{args:?}: {e}");
            }
        }
    }
}
