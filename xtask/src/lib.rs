//! `cargo xtask`: the project's own tooling, in Rust so CI needs only cargo.
//!
//! - `cargo xtask check-book`: every `{{#include}}` in the book points at a
//!   file and anchor that exist and include something, every measured
//!   number the prose types, on any page, names its source and is the one
//!   that source holds, or is marked as an input ([`quoted`]), then
//!   `mdbook build book` must print no warning, and no glossary term is
//!   used before the chapter that defines it, unless linked ([`terms`]).
//! - `cargo xtask check-layout`: builds the book and reads every page in
//!   headless Chromium at 1280 and 400 px ([`layout`]): nothing overflows
//!   its column, no diagram wraps, figure text is 11 px or more.
//! - `cargo xtask book-stats`: words, code blocks and code lines per page,
//!   includes expanded (what the teachers' session plan is measured with).
//! - `cargo xtask starters [DIR]`: writes the exercise starters (the
//!   solutions with their marked regions replaced by `todo!()`) to DIR,
//!   `book/starters` by default, a folder a teacher can hand out.
//! - `cargo xtask check-exercises`: the committed starters match the
//!   solutions, every starter compiles, every starter *fails* its tests and
//!   every solution passes them; then every known mistake
//!   (`book/exercises/*/mistakes/`) fails at least one test ([`mistakes`]),
//!   and the teachers' page of mistakes is up to date.
//! - `cargo xtask mistakes [NAME...]`: runs the known mistakes and prints
//!   the tests that catch each; `cargo xtask mutants`: cargo-mutants over
//!   the exercises' marked regions ([`mutants`]; too slow for CI).
//! - `cargo xtask handout DIR`: writes the students' repository (stages,
//!   testbed, starters as workspace members, a `Cargo.lock`, the book
//!   without solutions; with `--offline`, the crates' sources vendored and
//!   the book built, for a lab without internet); `cargo xtask
//!   check-handout` makes one and checks that its tests fail only in the
//!   starters, its book shows no solution, its pages cite no path or
//!   command it leaves out, and its offline copy resolves with no network.
//! - `cargo xtask grade COPY...`: grades a class, each student's copy of
//!   the hand-out by the solutions' tests, every started exercise built in
//!   one workspace and run under a time limit ([`grade`]); writes
//!   `results.json` per student and exercise and the class's table;
//!   `cargo xtask check-grade` grades a made-up class of six and checks
//!   every cell.
//! - `cargo xtask figures`: reruns the stages that made the book's figures
//!   and rewrites them (timelines and their figure tables);
//!   `cargo xtask figures --check` reruns them and fails if a committed
//!   figure disagrees with its run or was edited by hand.
//!
//! `cargo xtask --help` lists them, and `cargo xtask TASK --help` explains
//! one. The binary (`main.rs`) only parses the command line and runs the
//! task; the tasks live in this library, one module each, so that their
//! doc examples are compiled and run by `cargo test`. A task is added in
//! [`cli`]: one variant of [`cli::Task`], one arm of [`cli::Task::run`].
//!
//! Not here: anything a stage or a test needs at run time.

use std::fmt;

pub mod cargo;
pub mod cli;
pub mod figures;
pub mod grade;
pub mod handout;
pub mod includes;
pub mod layout;
pub mod limited;
pub mod mistakes;
pub mod mutants;
pub mod quoted;
pub mod scratch;
mod stages;
pub mod starters;
pub mod terms;
mod tidy;

/// A mistake in what was asked (a figure that does not exist, a folder
/// that must not be replaced), found before anything was written. The
/// binary prints it as one line and exits with status 2, as it does for a
/// misspelled flag; any other error exits with 1.
#[derive(Debug)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}
