//! The exercises in the form rustlings runs: one file per exercise.
//!
//! Rustlings (version 6 runs third-party exercise sets) wants, at the root
//! of the hand-out, an `info.toml` that lists the exercises in order with a
//! hint each, one file `exercises/NAME.rs` per exercise with a `fn main()`,
//! a `// TODO` and its `#[test]`s, and a `Cargo.toml` whose `bin = [...]`
//! names each file as a binary (and each `solutions/NAME.rs`, where there
//! is one). It then runs `cargo test --bin NAME` on every save.
//!
//! The exercises stay crates in `book/exercises/` (several files, tests
//! beside them, doc examples); this module folds each into one file:
//!
//! - `src/lib.rs` first, with its other `src/*.rs` modules inlined as
//!   `mod x { ... }` after it, in file-name order (the order in which
//!   known mistakes number their regions, so region N is the N-th here too);
//! - `tests/*.rs` inlined as a module: a libtest one under `#[cfg(test)]`,
//!   and ch02-respawn's own harness (it forks, so it must not run among
//!   libtest's threads) as the module the file's `main` runs, which rustlings
//!   runs once the tests pass;
//! - the crate's doc example as a `#[test]`: `cargo test --bin` runs no doc
//!   tests, and the example is a check the learner's code must pass;
//! - each marked region as `// TODO: <question>`, `todo!("<question>")`,
//!   `// END TODO` for a student, or as the solution's code for a teacher.
//!
//! Both files are put through rustfmt, as rustlings checks the solutions'.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::starters::{self, EXERCISES};

/// The line that closes a region in a student's file: what lies between a
/// `// TODO: ` line and it is the student's (`cargo xtask grade` reads it).
pub const END_TODO: &str = "// END TODO";

/// An exercise's name in rustlings: letters, digits and `_` only.
pub fn ident(exercise: &str) -> String {
    exercise.replace('-', "_")
}

/// The two files of one exercise.
#[derive(Debug)]
pub struct Files {
    /// What a student starts from.
    pub exercise: String,
    /// The same with the solution's code in every region.
    pub solution: String,
}

/// Folds the exercise crate `book/exercises/NAME` into its two files.
pub fn files(root: &Path, name: &str) -> Result<Files> {
    let combined = combine(&root.join(EXERCISES).join(name), name)
        .with_context(|| format!("exercise {name}"))?;
    let exercise = starters::strip_solutions_marked(&combined, Some(END_TODO))?;
    let solution = starters::keep_solutions(&combined);
    Ok(Files {
        exercise: rustfmt(&exercise).with_context(|| format!("exercise {name}"))?,
        solution: rustfmt(&solution).with_context(|| format!("solution {name}"))?,
    })
}

/// One text holding the whole crate, regions still marked.
fn combine(dir: &Path, name: &str) -> Result<String> {
    let crate_name = &ident(name);
    let lib = std::fs::read_to_string(dir.join("src/lib.rs"))?;
    let mut modules = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    for line in lib.lines() {
        if let Some(module) = module_declaration(line)
            .filter(|m| dir.join("src").join(format!("{}.rs", m.name)).is_file())
        {
            // The attributes just above (`#[cfg(test)]`) go with the module.
            let mut attributes = Vec::new();
            while kept
                .last()
                .is_some_and(|l| l.trim_start().starts_with("#["))
            {
                attributes.insert(0, kept.pop().unwrap_or_default());
            }
            modules.push((module, attributes.join("\n")));
            continue;
        }
        kept.push(line);
    }
    // As a binary, the crate's API is code that `main` never calls, and
    // lib.rs's own tests come before the modules appended after it.
    let docs = kept.iter().take_while(|l| l.starts_with("//!")).count();
    kept.insert(
        docs,
        "#![allow(dead_code, clippy::items_after_test_module)] // a library, as one binary",
    );
    let mut text = kept.join("\n") + "\n";
    modules.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    for (module, attributes) in modules {
        let body = std::fs::read_to_string(dir.join("src").join(format!("{}.rs", module.name)))?;
        text.push_str(&format!(
            "\n{attributes}\n{}mod {} {{\n{body}}}\n",
            module.visibility, module.name
        ));
    }

    let mut harness = None;
    let tests = dir.join("tests");
    if tests.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(&tests)?
            .map(|e| e.map(|e| e.path()))
            .collect::<std::io::Result<_>>()?;
        files.sort();
        for path in files {
            let module = path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            let body =
                std::fs::read_to_string(&path)?.replace(&format!("{crate_name}::"), "crate::");
            if body.lines().any(|l| l.starts_with("fn main()")) {
                // A harness of its own: run by the binary, not by libtest.
                let body = body.replacen("\nfn main()", "\npub fn main()", 1);
                text.push_str(&format!("\nmod {module} {{\n{body}}}\n"));
                harness = Some(module);
            } else {
                text.push_str(&format!("\n#[cfg(test)]\nmod {module} {{\n{body}}}\n"));
            }
        }
    }

    let example = doc_example(&lib, crate_name, harness.is_none());
    if let Some(example) = &example {
        text.push_str(example);
    }
    text.push_str(&match harness {
        Some(module) => format!(
            "\n/// Rustlings runs this once the tests pass: the example and {module}'s\n\
             /// checks fork processes, which a process must not do while libtest's\n\
             /// threads run.\n\
             fn main() {{\n    // The hints come from the test build's hook; this is no test build.\n    \
             testbed::hints::install({name:?});\n{}    {module}::main();\n}}\n",
            if example.is_some() {
                format!(
                    "    {}::the_example_at_the_top_of_the_file()\n        \
                     .expect(\"the example at the top of the file\");\n",
                    testbed::hints::DOC_EXAMPLE
                )
            } else {
                String::new()
            }
        ),
        None => {
            "\n/// Rustlings runs the tests above; there is nothing else to run.\nfn main() {}\n"
                .to_owned()
        }
    });
    Ok(text)
}

/// `mod x;` or `pub mod x;` on a line of its own.
struct Module {
    visibility: String,
    name: String,
}

fn module_declaration(line: &str) -> Option<Module> {
    let (visibility, rest) = match line.strip_prefix("pub ") {
        Some(rest) => ("pub ", rest),
        None => ("", line),
    };
    let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
    name.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        .then(|| Module {
            visibility: visibility.to_owned(),
            name: name.to_owned(),
        })
}

/// The crate's doc example (the first Rust block of its `//!` comment) as
/// a test (or, `as_test` false, a function for `main` to call), with the
/// crate's name read as `crate`.
fn doc_example(lib: &str, crate_name: &str, as_test: bool) -> Option<String> {
    let mut code = Vec::new();
    let mut fenced = false;
    let mut inside = false;
    for line in lib
        .lines()
        .take_while(|l| l.starts_with("//!") || l.is_empty())
    {
        let text = line.trim_start_matches("//!");
        let text = text.strip_prefix(' ').unwrap_or(text);
        if text.starts_with("```") {
            if inside {
                break;
            }
            fenced = !fenced;
            let language = text.trim_start_matches('`').trim();
            inside = fenced && (language.is_empty() || language == "rust");
            continue;
        }
        if inside {
            let shown = text
                .strip_prefix("# ")
                .unwrap_or(if text == "#" { "" } else { text });
            code.push(shown.replace(&format!("{crate_name}::"), "crate::"));
        }
    }
    if code.is_empty() {
        return None;
    }
    // `# Ok::<(), E>(())` ends an example that uses `?`: the test returns it.
    let returns = code
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| l.trim().strip_prefix("Ok::<"))
        .and_then(|l| l.strip_suffix(">(())"))
        .map(|types| format!(" -> Result<{types}>"))
        .unwrap_or_default();
    let (attribute, test, visibility) = if as_test {
        ("#[cfg(test)]\n", "#[test]\n", "")
    } else {
        ("", "", "pub ")
    };
    Some(format!(
        "\n/// The example at the top of this file: `cargo test --bin` runs no doc\n\
         /// tests, so here it is as code of its own.\n\
         {attribute}mod {} {{\n{test}{visibility}fn the_example_at_the_top_of_the_file(){returns} {{\n{}\n}}\n}}\n",
        testbed::hints::DOC_EXAMPLE,
        code.join("\n")
    ))
}

/// Formats Rust source with rustfmt (edition 2024, as rustlings checks).
pub fn rustfmt(text: &str) -> Result<String> {
    use std::io::Write;
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run rustfmt (rustup component add rustfmt)")?;
    child
        .stdin
        .take()
        .context("rustfmt's stdin")?
        .write_all(text.as_bytes())?;
    let output = child.wait_with_output()?;
    if !output.status.success() {
        bail!(
            "rustfmt failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(String::from_utf8(output.stdout)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_declarations_are_recognised_and_nothing_else() {
        let m = module_declaration("pub mod reactor;").unwrap();
        assert_eq!(
            (m.visibility.as_str(), m.name.as_str()),
            ("pub ", "reactor")
        );
        assert!(module_declaration("mod tests;").is_some());
        assert!(
            module_declaration("    mod tests;").is_none(),
            "only at the top level"
        );
        assert!(module_declaration("mod tests {").is_none());
        assert!(module_declaration("use a::b;").is_none());
    }

    #[test]
    fn the_doc_example_becomes_a_test_returning_its_result() {
        let lib = "//! Docs.\n//!\n//! ```\n//! use my_crate::f;\n//! f()?;\n//! # Ok::<(), Box<dyn std::error::Error>>(())\n//! ```\n\npub fn f() {}\n";
        let test = doc_example(lib, "my_crate", true).unwrap();
        assert!(test.contains("use crate::f;"), "{test}");
        assert!(
            test.contains("-> Result<(), Box<dyn std::error::Error>> {"),
            "{test}"
        );
        assert!(
            test.contains("Ok::<(), Box<dyn std::error::Error>>(())"),
            "{test}"
        );
        assert!(doc_example("//! ```text\n//! not rust\n//! ```\n", "x", true).is_none());
        let after_text =
            "//! ```text\n//! not rust\n//! ```\n//! Prose.\n//! ```\n//! f();\n//! ```\n";
        assert_eq!(
            doc_example(after_text, "x", true).map(|t| t.contains("Prose")),
            Some(false),
            "only the Rust block's lines"
        );
    }
}
