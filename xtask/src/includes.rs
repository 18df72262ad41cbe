//! The book may quote the project's code only through `{{#include}}`s of
//! the real files, so it cannot drift from what CI compiles. mdBook itself
//! is lenient: a missing anchor silently includes nothing. This check is
//! strict: every include must name a file that exists, an anchor that
//! exists in it, and bring in at least one non-blank line. Then the book is
//! built, and any warning mdBook prints fails the check.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Checks every include of every chapter, then builds the book.
pub fn check_book(root: &Path) -> Result<()> {
    let src = root.join("book/src");
    let mut problems = Vec::new();
    let mut count = 0;
    for page in markdown_files(&src)? {
        let text = std::fs::read_to_string(&page)?;
        for (line_no, line) in text.lines().enumerate() {
            for directive in directives(line) {
                count += 1;
                if let Err(e) = check_include(&page, directive) {
                    problems.push(format!(
                        "{}:{}: {{{{#include {directive}}}}}: {e}",
                        page.strip_prefix(root).unwrap_or(&page).display(),
                        line_no + 1
                    ));
                }
            }
        }
    }
    if !problems.is_empty() {
        bail!("broken book includes:\n  {}", problems.join("\n  "));
    }
    println!("book includes: {count} checked, all resolve");

    let output = Command::new("mdbook")
        .arg("build")
        .arg(root.join("book"))
        .output()
        .context("cannot run mdbook (cargo install --locked mdbook)")?;
    let log = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    let warnings: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("WARN") || l.contains("ERROR"))
        .collect();
    if !output.status.success() || !warnings.is_empty() {
        bail!("mdbook build failed or warned:\n{log}");
    }
    println!("mdbook build: no warnings");
    Ok(())
}

/// `cargo xtask book-stats`: for each page, the words of prose and the
/// code blocks and lines a reader meets once the includes are expanded:
/// the measure a session plan should be made with.
pub fn book_stats(root: &Path) -> Result<()> {
    let src = root.join("book/src");
    println!(
        "{:<28} {:>6} {:>7} {:>11}",
        "page", "words", "blocks", "code lines"
    );
    for page in markdown_files(&src)? {
        let name = page
            .strip_prefix(&src)
            .unwrap_or(&page)
            .display()
            .to_string();
        if name.starts_with("figures/") || name == "SUMMARY.md" {
            continue;
        }
        let (words, blocks, code) = page_stats(&page)?;
        println!("{name:<28} {words:>6} {blocks:>7} {code:>11}");
    }
    Ok(())
}

/// Words outside code blocks, code blocks, and lines inside them (with
/// every include expanded; a figure's table counts as prose).
fn page_stats(page: &Path) -> Result<(usize, usize, usize)> {
    let text = std::fs::read_to_string(page)?;
    let (mut words, mut blocks, mut code) = (0, 0, 0);
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            blocks += usize::from(in_code);
            continue;
        }
        let expanded: Vec<String> = match directives(line).first() {
            Some(directive) => included(page, directive)
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect(),
            None => vec![line.to_owned()],
        };
        if in_code {
            code += expanded.len();
        } else {
            words += expanded
                .iter()
                .filter(|l| !l.starts_with("<!--") && !l.starts_with("ANCHOR"))
                .map(|l| l.split_whitespace().count())
                .sum::<usize>();
        }
    }
    Ok((words, blocks, code))
}

/// What an include brings in (the whole file, or an anchor's lines).
fn included(page: &Path, directive: &str) -> Option<String> {
    let (path, anchor) = match directive.split_once(':') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (directive, None),
    };
    let text = std::fs::read_to_string(page.parent()?.join(path)).ok()?;
    match anchor {
        Some(anchor) => anchored(&text, anchor),
        None => Some(text),
    }
}

/// The `path[:anchor]` parts of the `{{#include ...}}` directives on a line.
///
/// ```
/// use xtask::includes::directives;
///
/// let line = "see {{#include ../../04-select/src/lib.rs:wait}} and {{#include x.md}}";
/// assert_eq!(directives(line), ["../../04-select/src/lib.rs:wait", "x.md"]);
/// ```
pub fn directives(line: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find("{{#include ") {
        let after = &rest[start + "{{#include ".len()..];
        let Some(end) = after.find("}}") else { break };
        found.push(after[..end].trim());
        rest = &after[end..];
    }
    found
}

/// Resolves one directive relative to the page that contains it: the
/// file must exist, the anchor (if any) must open and close in it, and
/// what it brings in must not be blank. Line numbers are refused: they
/// point at other lines as soon as the code changes.
///
/// ```
/// use xtask::includes::check_include;
///
/// let dir = std::env::temp_dir().join(format!("xtask-doc-include-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("code.rs"), "// ANCHOR: f\nfn f() {}\n// ANCHOR_END: f\n")?;
/// let page = dir.join("chapter.md");
/// assert!(check_include(&page, "code.rs:f").is_ok());
/// let renamed = check_include(&page, "code.rs:g").unwrap_err();
/// assert!(renamed.to_string().starts_with("no anchor 'g'"));
/// assert!(check_include(&page, "code.rs:1:3").is_err());
/// std::fs::remove_dir_all(&dir)?;
/// # anyhow::Ok(())
/// ```
pub fn check_include(page: &Path, directive: &str) -> Result<()> {
    let (path, selector) = match directive.split_once(':') {
        Some((path, selector)) => (path, Some(selector)),
        None => (directive, None),
    };
    let file = page.parent().unwrap_or(Path::new(".")).join(path);
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("no such file {}", file.display()))?;
    let included = match selector {
        None => text.clone(),
        Some(selector) if selector.chars().all(|c| c.is_ascii_digit() || c == ':') => {
            bail!("line-number includes drift when the code changes; use an anchor ({selector})")
        }
        Some(anchor) => anchored(&text, anchor)
            .with_context(|| format!("no anchor '{anchor}' in {}", file.display()))?,
    };
    if included.lines().all(|l| l.trim().is_empty()) {
        bail!("includes nothing");
    }
    Ok(())
}

/// The lines between `ANCHOR: name` and `ANCHOR_END: name`, without any
/// other anchor lines (as mdBook does). Like mdBook, a marker may sit
/// anywhere on its line (`// ANCHOR: x`, `<!-- ANCHOR: x -->`). `None`
/// if the anchor does not both open and close.
///
/// ```
/// use xtask::includes::anchored;
///
/// let code = "// ANCHOR: f\nfn f() {}\n// ANCHOR: inner\n// ANCHOR_END: inner\n// ANCHOR_END: f\n";
/// assert_eq!(anchored(code, "f").as_deref(), Some("fn f() {}\n"));
/// assert_eq!(anchored(code, "g"), None);
/// ```
pub fn anchored(text: &str, anchor: &str) -> Option<String> {
    let mut inside = false;
    let mut closed = false;
    let mut body = String::new();
    for line in text.lines() {
        if marker(line, "ANCHOR:") == Some(anchor) {
            inside = true;
        } else if marker(line, "ANCHOR_END:") == Some(anchor) {
            closed = inside;
            inside = false;
        } else if inside && !line.contains("ANCHOR") {
            body.push_str(line);
            body.push('\n');
        }
    }
    closed.then_some(body)
}

/// The name after `tag` on `line` (mdBook's `[\w_-]+`), if the tag is there.
fn marker<'a>(line: &'a str, tag: &str) -> Option<&'a str> {
    let rest = line[line.find(tag)? + tag.len()..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

fn markdown_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            files.extend(markdown_files(&path)?);
        } else if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_directive_on_a_line() {
        assert_eq!(
            directives("a {{#include x.rs:one}} b {{#include y.rs}}"),
            ["x.rs:one", "y.rs"]
        );
        assert!(directives("no includes").is_empty());
    }

    #[test]
    fn anchors_must_open_close_and_hold_something() {
        let text = "x\n// ANCHOR: a\nfn a() {}\n// ANCHOR: inner\n// ANCHOR_END: inner\n// ANCHOR_END: a\n// ANCHOR: open\n<!-- ANCHOR: md -->\ntext\n<!-- ANCHOR_END: md -->\n";
        assert_eq!(anchored(text, "a").as_deref(), Some("fn a() {}\n"));
        assert_eq!(anchored(text, "inner").as_deref(), Some(""));
        assert_eq!(anchored(text, "open"), None);
        assert_eq!(anchored(text, "missing"), None);
        assert_eq!(anchored(text, "md").as_deref(), Some("text\n"));
    }

    #[test]
    fn a_broken_anchor_is_caught() -> Result<()> {
        let dir = std::env::temp_dir().join(format!("xtask-includes-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join("code.rs"),
            "// ANCHOR: good\nfn f() {}\n// ANCHOR_END: good\n// ANCHOR: empty\n// ANCHOR_END: empty\n",
        )?;
        let page = dir.join("page.md");
        assert!(check_include(&page, "code.rs:good").is_ok());
        let errors = [
            check_include(&page, "code.rs:renamed"),
            check_include(&page, "code.rs:empty"),
            check_include(&page, "missing.rs:good"),
            check_include(&page, "code.rs:1:2"),
        ];
        std::fs::remove_dir_all(&dir)?;
        assert!(errors.iter().all(Result::is_err));
        Ok(())
    }
}
