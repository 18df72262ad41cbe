//! A failing test should point at the idea, not at a diff: every assertion
//! in an exercise's tests carries a message saying what behaviour was
//! expected ("a receiver returned None while the channel was still
//! open"). A bare `assert_eq!` prints two values and leaves the student to
//! guess what they mean. The examples in the docs are tests too (a
//! learner's `cargo test -p` runs them), so their assertions count.

use std::path::Path;

use anyhow::{Result, bail};

use crate::scratch::collect_rs;
use crate::starters::EXERCISES;

/// Fails, naming them, on assertions without a message in the exercises'
/// sources and tests.
pub fn check(root: &Path) -> Result<()> {
    let mut bare = Vec::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join(EXERCISES))? {
        let dir = entry?.path();
        for sub in ["src", "tests"] {
            collect_rs(&dir.join(sub), &mut files)?;
        }
    }
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file)?;
        for line in bare_assertions(&with_examples_as_code(&text)) {
            let name = file.strip_prefix(root).unwrap_or(&file).display();
            bare.push(format!("{name}:{line}"));
        }
    }
    if !bare.is_empty() {
        bail!(
            "assertions without a message saying what was expected:\n  {}",
            bare.join("\n  ")
        );
    }
    Ok(())
}

/// `text` with its doc comments' examples (the lines inside a fenced
/// block of `///` or `//!` comments) turned into plain code, hidden lines
/// (`# `) included, and the doc comments' prose blanked: the lines keep
/// their numbers.
fn with_examples_as_code(text: &str) -> String {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let Some(doc) = trimmed
            .strip_prefix("//!")
            .or_else(|| trimmed.strip_prefix("///"))
        else {
            out.push(line.to_owned());
            continue;
        };
        let doc = doc.strip_prefix(' ').unwrap_or(doc);
        if doc.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push(String::new());
        } else if fenced {
            let code = doc.strip_prefix("# ").unwrap_or(doc);
            out.push(code.to_owned());
        } else {
            out.push(String::new());
        }
    }
    out.join("\n")
}

/// The lines of `assert!`, `assert_eq!` and `assert_ne!` calls that have
/// no message argument.
fn bare_assertions(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for (macro_name, needed) in [("assert!(", 2), ("assert_eq!(", 3), ("assert_ne!(", 3)] {
        let mut from = 0;
        while let Some(found) = text[from..].find(macro_name) {
            let start = from + found;
            from = start + macro_name.len();
            let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
            let before = &text[line_start..start];
            // Not a call in a comment, nor the tail of another name
            // (`debug_assert!`).
            if before.contains("//") || before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            if arguments(&text[from..]) < needed {
                lines.push(text[..start].matches('\n').count() + 1);
            }
        }
    }
    lines.sort_unstable();
    lines
}

/// How many top-level arguments the call whose arguments start `text`
/// has (after its opening parenthesis), skipping strings and characters.
fn arguments(text: &str) -> usize {
    let mut depth = 0;
    let mut count = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(s) = chars.next() {
                    match s {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            // A character literal such as ',' or '(' (not a lifetime).
            '\'' if chars.clone().nth(1) == Some('\'') => {
                chars.nth(1);
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return count,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                let rest: String = chars.clone().collect();
                if !rest.trim_start().starts_with(')') {
                    count += 1;
                }
            }
            _ => {}
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assertions_without_a_message_are_found() {
        let text = "fn t() {\n    assert!(a == f(1, 2));\n    assert_eq!(x, y);\n    assert_eq!(x, y, \"x, as y\");\n    assert!(z, \"why\",);\n    assert_eq!(c, ',');\n    debug_assert!(q);\n    // assert!(commented);\n}\n";
        assert_eq!(
            bare_assertions(text),
            [2, 3, 6],
            "the bare assert!, the bare assert_eq! and the one whose ',' is a character"
        );
    }

    #[test]
    fn an_examples_assertions_count_and_its_prose_does_not() {
        let text = "//! Says `assert!(x)`.\n//!\n//! ```\n//! assert!(a);\n//! # assert_eq!(b, c);\n//! assert!(d, \"why\");\n//! ```\n/// ```\n/// assert_eq!(\n///     e,\n///     f\n/// );\n/// ```\nfn g() {}\n";
        assert_eq!(
            bare_assertions(&with_examples_as_code(text)),
            [4, 5, 9],
            "the example's bare assert! and hidden assert_eq!, and the one over three lines, not the prose's"
        );
    }

    #[test]
    fn every_assertion_of_the_exercises_has_a_message() -> Result<()> {
        check(&crate::cargo::workspace_root())
    }
}
