//! The class's crates, built once: every started (student, exercise) pair
//! becomes a copy of the exercise's solution crate with the student's code
//! in its regions, and all of them are members of one scratch workspace,
//! built by one cargo command into the repository's target folder.
//!
//! One build rather than one per student matters: the stages, the testbed
//! and their dependencies are compiled once for the whole class (and are
//! already compiled if the repository was), and cargo builds the students'
//! crates side by side on every core. A crate that does not compile must
//! not stop the others, so the build runs with `--keep-going`
//! (`cargo build --tests`, which builds what `cargo test --no-run` does
//! and, unlike it, takes that flag), and its JSON messages say which
//! crate failed and why, and where each test binary is.
//!
//! A workspace's packages need distinct names, so each copy is renamed
//! after its student (`ch02-respawn-by-ada`), while its library keeps the
//! exercise's crate name (`[lib] name = "ch02_respawn"`): the integration
//! tests, which `use ch02_respawn::...`, compile unchanged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result};

use super::copy::Copy;
use crate::scratch::{Regions, copy_crate, fresh_dir};
use crate::starters::{self, EXERCISES};

/// One student's exercise to build: its package, and the code for its
/// regions.
#[derive(Debug, Clone)]
pub struct Job {
    /// The student.
    pub student: String,
    /// The exercise (the solution's folder name).
    pub exercise: String,
    /// The code of each region, in order.
    pub bodies: Vec<String>,
    /// The line of the student's file where each region's code begins.
    pub starts: Vec<usize>,
}

/// A test binary cargo built.
#[derive(Debug, Clone)]
pub struct Binary {
    /// The target's name (the crate's name for its unit tests).
    pub target: String,
    /// The executable.
    pub exe: PathBuf,
    /// Whether it is a libtest harness (`harness = false` makes it a plain
    /// `main`, which passes by exiting with 0).
    pub libtest: bool,
}

/// What the build made of one job.
#[derive(Debug, Clone)]
pub enum Built {
    /// Its test binaries: the library's unit tests first, then the
    /// integration tests by name.
    Tests(Vec<Binary>),
    /// It did not compile: the compiler's errors.
    Failed(String),
}

/// Writes the workspace of `jobs` into `scratch` and builds it; each job's
/// package name and what the build made of it, in the order of `jobs`.
pub fn build(root: &Path, scratch: &Path, jobs: &[Job]) -> Result<Vec<(String, Built)>> {
    fresh_dir(scratch)?;
    let mut packages = Vec::new();
    let mut spans = Vec::new();
    for job in jobs {
        let package = package_name(&job.exercise, &job.student, &packages);
        let dir = scratch.join(&package);
        copy_crate(&root.join(EXERCISES).join(&job.exercise), &dir)?;
        Regions::find(&dir)?
            .replace_all(&job.bodies)
            .with_context(|| format!("{}'s {}", job.student, job.exercise))?;
        // Where the student's code now lies, as the compiler names it.
        spans.push(
            Regions::find(&dir)?
                .spans()
                .map(|(file, first, last)| {
                    let file = file.strip_prefix(scratch).unwrap_or(file);
                    (file.to_string_lossy().into_owned(), first, last)
                })
                .collect::<Vec<_>>(),
        );
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml"))?;
        std::fs::write(
            dir.join("Cargo.toml"),
            renamed(&manifest, &job.exercise, &package),
        )?;
        packages.push(package);
    }
    std::fs::write(
        scratch.join("Cargo.toml"),
        starters::workspace_manifest(root, scratch, &packages)?,
    )?;
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock"))?;
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    let output = crate::cargo::command()
        .args([
            "build",
            "--tests",
            "--keep-going",
            "--offline",
            "--workspace",
        ])
        .arg("--message-format=json")
        .env("CARGO_TARGET_DIR", crate::cargo::target_dir(root)?)
        .current_dir(scratch)
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo build --tests")?;
    let mut by_dir = read_messages(&String::from_utf8_lossy(&output.stdout));
    Ok(packages
        .into_iter()
        .zip(jobs)
        .zip(spans)
        .map(|((package, job), spans)| {
            let found = by_dir.remove(&scratch.join(&package)).unwrap_or_default();
            let harnessless = harnessless_tests(&root.join(EXERCISES).join(&job.exercise));
            let built = match found.into_built(&harnessless) {
                // The errors name the exercise's files, not the scratch
                // copy's folder, and where the student's own file has
                // the line.
                Built::Failed(errors) => {
                    let file = Copy::exercise_path(&job.exercise);
                    let errors = in_student_file(&errors, &spans, &job.starts, &file);
                    Built::Failed(
                        errors.replace(&format!("{package}/"), &format!("{}/", job.exercise)),
                    )
                }
                tests => tests,
            };
            (package, built)
        })
        .collect())
}

/// `errors` with, under each `--> FILE:LINE:COLUMN` that points into a
/// region (`spans`: file, first and last line of each region's code),
/// the same place in the student's `file`, whose regions' code begins at
/// the lines `starts`.
fn in_student_file(
    errors: &str,
    spans: &[(String, usize, usize)],
    starts: &[usize],
    file: &str,
) -> String {
    let mut out = String::new();
    for line in errors.lines() {
        out.push_str(line);
        out.push('\n');
        let Some((indent, place)) = line.split_once("--> ") else {
            continue;
        };
        let mut parts = place.rsplitn(3, ':');
        let (Some(column), Some(number), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Ok(number) = number.parse::<usize>() else {
            continue;
        };
        let region = spans
            .iter()
            .position(|(p, first, last)| p == path && (*first..=*last).contains(&number));
        if let Some((r, start)) = region.and_then(|r| starts.get(r).map(|s| (r, s))) {
            let own = start + (number - spans[r].1);
            out.push_str(&format!(
                "{indent} = in the student's file: {file}:{own}:{column}\n"
            ));
        }
    }
    out
}

/// A package name for `exercise` by `student`, unlike any in `taken`.
fn package_name(exercise: &str, student: &str, taken: &[String]) -> String {
    let student: String = student
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c.to_ascii_lowercase(),
                false => '_',
            },
        )
        .collect();
    let base = format!("{exercise}-by-{student}");
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    name
}

/// A solution's manifest with its package renamed, its library keeping the
/// exercise's crate name.
fn renamed(manifest: &str, exercise: &str, package: &str) -> String {
    let lib = exercise.replace('-', "_");
    let mut out = Vec::new();
    let mut section = String::new();
    let mut lib_named = false;
    for line in manifest.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            section = trimmed.to_owned();
            out.push(line.to_owned());
            if section == "[lib]" {
                out.push(format!("name = {lib:?}"));
                lib_named = true;
            }
            continue;
        }
        let key = trimmed.split('=').next().unwrap_or("").trim();
        match (section.as_str(), key) {
            ("[package]", "name") => out.push(format!("name = {package:?}")),
            ("[lib]", "name") => {}
            _ => out.push(line.to_owned()),
        }
    }
    if !lib_named {
        out.push(String::new());
        out.push("[lib]".to_owned());
        out.push(format!("name = {lib:?}"));
    }
    out.join("\n") + "\n"
}

/// The integration tests a solution's manifest declares `harness = false`.
fn harnessless_tests(crate_dir: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap_or_default();
    let mut found = Vec::new();
    let mut name = None;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            name = None;
        } else if let Some(value) = line.strip_prefix("name") {
            name = Some(
                value
                    .trim_start_matches([' ', '='])
                    .trim_matches('"')
                    .to_owned(),
            );
        } else if line.replace(' ', "") == "harness=false"
            && let Some(name) = name.take()
        {
            found.push(name);
        }
    }
    found
}

/// What cargo's messages said about one package.
#[derive(Debug, Default)]
struct Found {
    /// (target kind is `lib`, target name, executable).
    binaries: Vec<(bool, String, PathBuf)>,
    errors: Vec<String>,
}

impl Found {
    fn into_built(mut self, harnessless: &[String]) -> Built {
        if !self.errors.is_empty() || self.binaries.is_empty() {
            let errors = if self.errors.is_empty() {
                "cargo built no test binary (see the build's output above)".to_owned()
            } else {
                self.errors.join("\n")
            };
            return Built::Failed(errors);
        }
        self.binaries
            .sort_by(|a, b| (!a.0, a.1.as_str()).cmp(&(!b.0, b.1.as_str())));
        Built::Tests(
            self.binaries
                .into_iter()
                .map(|(_, target, exe)| Binary {
                    libtest: !harnessless.contains(&target),
                    target,
                    exe,
                })
                .collect(),
        )
    }
}

/// cargo's JSON messages, by the folder of the package they are about: its
/// test executables and its compiler errors.
fn read_messages(stdout: &str) -> BTreeMap<PathBuf, Found> {
    let mut by_dir: BTreeMap<PathBuf, Found> = BTreeMap::new();
    for line in stdout.lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let Some(dir) = message["manifest_path"]
            .as_str()
            .and_then(|p| Path::new(p).parent())
        else {
            continue;
        };
        let found = by_dir.entry(dir.to_path_buf()).or_default();
        match message["reason"].as_str() {
            Some("compiler-artifact") => {
                let kind = &message["target"]["kind"][0];
                let is_test = message["profile"]["test"].as_bool() == Some(true) || kind == "test";
                if let (true, Some(exe), Some(name)) = (
                    is_test,
                    message["executable"].as_str(),
                    message["target"]["name"].as_str(),
                ) {
                    found
                        .binaries
                        .push((kind == "lib", name.to_owned(), PathBuf::from(exe)));
                }
            }
            Some("compiler-message") if message["message"]["level"] == "error" => {
                if let Some(rendered) = message["message"]["rendered"].as_str() {
                    found.errors.push(rendered.trim_end().to_owned());
                }
            }
            _ => {}
        }
    }
    by_dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_in_a_region_names_the_student_s_line_too() {
        let errors = "error: expected `;`, found `is`\n  --> ch06-channel-by-bo/src/lib.rs:82:14\n   |\n\
                      82 |         this is not Rust;\n\
                      error[E0308]: mismatched types\n --> ch06-channel-by-bo/src/lib.rs:12:5\n";
        let spans = [("ch06-channel-by-bo/src/lib.rs".to_owned(), 80, 84)];
        let out = in_student_file(errors, &spans, &[61], "exercises/ch06_channel.rs");
        let added: Vec<&str> = out
            .lines()
            .filter(|l| l.contains("student's file"))
            .collect();
        assert_eq!(
            added,
            ["   = in the student's file: exercises/ch06_channel.rs:63:14"],
            "line 82 is the region's third, and line 12 is the solution's own"
        );
    }

    #[test]
    fn packages_are_renamed_and_libraries_keep_their_name() {
        let manifest = "[package]\nname = \"ch02-respawn\"\nversion.workspace = true\n\n[[test]]\nname = \"respawn\"\nharness = false\n";
        let out = renamed(manifest, "ch02-respawn", "ch02-respawn-by-ada");
        assert!(
            out.starts_with("[package]\nname = \"ch02-respawn-by-ada\"\n"),
            "{out}"
        );
        assert!(out.contains("[[test]]\nname = \"respawn\"\n"), "{out}");
        assert!(out.ends_with("[lib]\nname = \"ch02_respawn\"\n"), "{out}");
        let with_lib = renamed("[lib]\nname = \"x\"\npath = \"a.rs\"\n", "e-f", "p");
        assert_eq!(with_lib, "[lib]\nname = \"e_f\"\npath = \"a.rs\"\n");
    }

    #[test]
    fn package_names_are_distinct_and_valid() {
        let taken = vec!["ch06-echo-by-ada".to_owned()];
        assert_eq!(
            package_name("ch06-echo", "Ada", &taken),
            "ch06-echo-by-ada-2"
        );
        assert_eq!(package_name("ch06-echo", "b. o", &[]), "ch06-echo-by-b__o");
    }

    #[test]
    fn messages_name_binaries_and_errors_by_package() {
        let out = r#"{"reason":"compiler-artifact","manifest_path":"/s/a/Cargo.toml","target":{"kind":["test"],"name":"stages"},"profile":{"test":true},"executable":"/t/stages-1"}
{"reason":"compiler-artifact","manifest_path":"/s/a/Cargo.toml","target":{"kind":["lib"],"name":"a"},"profile":{"test":true},"executable":"/t/a-2"}
{"reason":"compiler-artifact","manifest_path":"/s/a/Cargo.toml","target":{"kind":["lib"],"name":"a"},"profile":{"test":false},"executable":null}
{"reason":"compiler-message","manifest_path":"/s/b/Cargo.toml","message":{"level":"error","rendered":"error[E0308]: mismatched types\n"}}
{"reason":"compiler-message","manifest_path":"/s/b/Cargo.toml","message":{"level":"warning","rendered":"warning: unused\n"}}"#;
        let mut by_dir = read_messages(out);
        let a = by_dir.remove(Path::new("/s/a")).unwrap_or_default();
        let Built::Tests(binaries) = a.into_built(&["stages".to_owned()]) else {
            panic!("a built");
        };
        let names: Vec<(&str, bool)> = binaries
            .iter()
            .map(|b| (b.target.as_str(), b.libtest))
            .collect();
        assert_eq!(names, [("a", true), ("stages", false)], "the lib's first");
        let b = by_dir.remove(Path::new("/s/b")).unwrap_or_default();
        let Built::Failed(errors) = b.into_built(&[]) else {
            panic!("b failed");
        };
        assert_eq!(errors, "error[E0308]: mismatched types");
    }

    #[test]
    fn harnessless_tests_are_read_from_the_manifest() -> Result<()> {
        let dir = crate::cargo::workspace_root()
            .join(EXERCISES)
            .join("ch02-respawn");
        assert_eq!(harnessless_tests(&dir), ["respawn"]);
        Ok(())
    }
}
