//! The hand-out's pages cite nothing it leaves out.
//!
//! The repository's pages are written for the repository: they send the
//! reader to `book/exercises/` for a solution, to `xtask/` for a check, to
//! `cargo xtask figures` to remake a figure. A student's copy has none of
//! these, and a sentence that points at a folder that is not there (or a
//! command that fails) costs a class ten minutes of hunting. So the
//! hand-out's Markdown (README, ARCHITECTURE.md, `docs/`, the book's
//! sources) and the comments of the Rust it ships are read for:
//!
//! - every relative link (`[text](path)`), which must name a file or
//!   folder of the hand-out;
//! - every backticked path whose first part is a top-level entry of the
//!   repository (`` `book/exercises/ch01-deadline` ``, `` `.ci/run` ``),
//!   which must exist in the hand-out;
//! - the mention, anywhere, of a folder the hand-out leaves out
//!   (`LEFT_OUT`), or of what a student cannot run or see
//!   (`NEVER`: `cargo xtask`, the speaker notes).
//!
//! A passage only the repository's edition should have is marked
//! `<!-- repository-only -->` ... `<!-- /repository-only -->`;
//! [`for_students`] drops it from the hand-out's copy, with the marker a
//! generated figure carries (`<!-- Made by cargo xtask figures ... -->`).

use std::path::{Path, PathBuf};

use anyhow::Result;

/// Folders of the repository that a hand-out may leave out: mentioned
/// anywhere (backticked or not), they must exist in it.
const LEFT_OUT: [&str; 6] = [
    "book/exercises/",
    "book/starters/",
    "book/src/teachers/",
    "teachers/",
    "xtask/",
    ".ci/",
];

/// What a student's copy never offers: the project's own tooling, and the
/// teachers' script, which the hand-out's book drops.
const NEVER: [&str; 2] = ["cargo xtask", "speaker notes"];

/// The markers of a passage for the repository's edition only.
const OPEN: &str = "<!-- repository-only -->";
const CLOSE: &str = "<!-- /repository-only -->";
/// How a generated figure's marker comment starts.
const MADE_BY: &str = "<!-- Made by `cargo xtask";

/// One citation of something the hand-out does not have.
#[derive(Debug, PartialEq, Eq)]
pub struct Dangling {
    /// The file, relative to the hand-out.
    pub file: PathBuf,
    /// Its line, from 1.
    pub line: usize,
    /// What it cites.
    pub cited: String,
}

impl std::fmt::Display for Dangling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.cited)
    }
}

/// A page as the hand-out ships it: without its repository-only passages
/// and without a generated figure's marker comment.
///
/// ```
/// use xtask::handout::refs::for_students;
///
/// let page = "Run it.\n<!-- repository-only -->\n`cargo xtask figures` remakes it.\n<!-- /repository-only -->\nDone.\n";
/// assert_eq!(for_students(page), "Run it.\nDone.\n");
/// ```
pub fn for_students(text: &str) -> String {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        if trimmed == OPEN {
            for rest in lines.by_ref() {
                if rest.trim() == CLOSE {
                    break;
                }
            }
            continue;
        }
        if trimmed.starts_with(MADE_BY) {
            if !trimmed.contains("-->") {
                for rest in lines.by_ref() {
                    if rest.contains("-->") {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(line);
    }
    let mut page = out.join("\n");
    if text.ends_with('\n') {
        page.push('\n');
    }
    page
}

/// Applies [`for_students`] to every Markdown file of the hand-out at
/// `out`.
pub fn strip(out: &Path) -> Result<()> {
    for file in files(out, out)? {
        if file.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&file)?;
            let student = for_students(&text);
            if student != text {
                std::fs::write(&file, student)?;
            }
        }
    }
    Ok(())
}

/// Every citation, in the hand-out at `out`, of something it does not
/// hold; `repository` names the top-level entries a path may start with.
pub fn dangling(out: &Path, repository: &[String]) -> Result<Vec<Dangling>> {
    let mut found = Vec::new();
    for file in files(out, out)? {
        let markdown = file.extension().is_some_and(|e| e == "md");
        let rust = file.extension().is_some_and(|e| e == "rs");
        if !markdown && !rust {
            continue;
        }
        let text = std::fs::read_to_string(&file)?;
        let relative = file.strip_prefix(out).unwrap_or(&file).to_path_buf();
        let dir = file.parent().unwrap_or(out);
        for (number, line) in text.lines().enumerate() {
            // In Rust, what a reader sees: the comments.
            if rust && !line.trim_start().starts_with("//") {
                continue;
            }
            for cited in cited(line, markdown) {
                let exists = match &cited {
                    Cited::Link(link) => dir.join(link).exists(),
                    Cited::Path(path) => !looks_like(path, repository) || present(out, path),
                    Cited::Phrase(_) => false,
                };
                if !exists {
                    found.push(Dangling {
                        file: relative.clone(),
                        line: number + 1,
                        cited: cited.text().to_owned(),
                    });
                }
            }
        }
    }
    found.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    Ok(found)
}

/// What one line cites.
#[derive(Debug, PartialEq, Eq)]
enum Cited {
    /// A Markdown link's relative target, without its `#fragment`.
    Link(String),
    /// A path, backticked or one of [`LEFT_OUT`].
    Path(String),
    /// One of [`NEVER`].
    Phrase(String),
}

impl Cited {
    fn text(&self) -> &str {
        match self {
            Cited::Link(s) | Cited::Path(s) | Cited::Phrase(s) => s,
        }
    }
}

/// The citations of one line: its links (Markdown only), its backticked
/// paths, the left-out folders and the phrases of [`NEVER`] it mentions.
fn cited(line: &str, markdown: bool) -> Vec<Cited> {
    let mut out = Vec::new();
    let lower = line.to_lowercase();
    for phrase in NEVER {
        if lower.contains(phrase) {
            out.push(Cited::Phrase(phrase.to_owned()));
        }
    }
    if markdown {
        // Links in prose: a link inside a code span is an example.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let target = &rest[at + 2..];
            let end = target.find(')').unwrap_or(target.len());
            let link = target[..end].split('#').next().unwrap_or("").trim();
            let external = link.contains("://") || link.starts_with("mailto:");
            if !link.is_empty() && !external && !link.starts_with('{') {
                out.push(Cited::Link(link.to_owned()));
            }
            rest = &target[end..];
        }
    }
    let mut paths: Vec<String> = line
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.contains('/') && !span.contains(char::is_whitespace))
        .map(str::to_owned)
        .collect();
    for folder in LEFT_OUT {
        let mut from = 0;
        while let Some(at) = line[from..].find(folder) {
            let start = from + at;
            // `book/src/teachers/` is also `teachers/`: count it once, as
            // the longer; and `src/xtask/` is not `xtask/`.
            let whole = start == 0
                || !line[..start]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '/' || c == '-' || c == '_');
            if whole {
                let end = line[start..]
                    .find(|c: char| c.is_whitespace() || "`)],;:'\"".contains(c))
                    .map_or(line.len(), |e| start + e);
                paths.push(line[start..end].to_owned());
            }
            from = start + folder.len();
        }
    }
    paths.sort();
    paths.dedup();
    out.extend(paths.into_iter().map(Cited::Path));
    out
}

/// Whether a backticked span is a path into the repository: its first
/// part names one of the repository's top-level entries, other than
/// `target` (what the reader's own builds and runs write: a copy gets it
/// with its first `cargo build`).
fn looks_like(path: &str, repository: &[String]) -> bool {
    let first = path
        .trim_start_matches("./")
        .split('/')
        .next()
        .unwrap_or("");
    first != "target" && repository.iter().any(|entry| entry == first)
}

/// Whether `path` is in the hand-out; a path ending in a pattern
/// (`ch10-…`, `*`, `NAME`) counts when the folder holding it is there.
fn present(out: &Path, path: &str) -> bool {
    let path = path.trim_start_matches("./").trim_end_matches('.');
    let patterned = path.contains(['…', '*', '<']) || path.split('/').any(is_placeholder);
    let mut checked = PathBuf::new();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        if patterned && (part.contains(['…', '*', '<']) || is_placeholder(part)) {
            break;
        }
        checked.push(part);
    }
    out.join(checked).exists()
}

/// `NAME`, `N`: a word in capitals standing for any name.
fn is_placeholder(part: &str) -> bool {
    let stem = part.split('.').next().unwrap_or(part);
    !stem.is_empty() && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_')
}

/// The files under `dir`, without `target/`, `vendor/`, `.git/` or the
/// built book.
fn files(out: &Path, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let skipped = matches!(&*name, "target" | "vendor" | ".git" | "node_modules")
            || path == out.join("book/book");
        if skipped {
            continue;
        }
        if path.is_dir() {
            found.extend(files(out, &path)?);
        } else {
            found.push(path);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repository() -> Vec<String> {
        [
            "book",
            "xtask",
            ".ci",
            "docs",
            "testbed",
            "README.md",
            "target",
        ]
        .map(String::from)
        .to_vec()
    }

    /// A hand-out of a few pages and a crate, for the citations to point
    /// at; `name` keeps the tests that run at once apart.
    fn handout(name: &str, pages: &[(&str, &str)]) -> Result<PathBuf> {
        let out = std::env::temp_dir().join(format!("xtask-refs-{}-{name}", std::process::id()));
        if out.exists() {
            std::fs::remove_dir_all(&out)?;
        }
        std::fs::create_dir_all(out.join("book/src"))?;
        std::fs::create_dir_all(out.join("testbed/src"))?;
        std::fs::write(out.join("testbed/src/lib.rs"), "")?;
        for (path, text) in pages {
            std::fs::write(out.join(path), text)?;
        }
        Ok(out)
    }

    fn cites(out: &Path) -> Result<Vec<String>> {
        Ok(dangling(out, &repository())?
            .into_iter()
            .map(|d| d.to_string())
            .collect())
    }

    #[test]
    fn links_and_paths_that_exist_pass() -> Result<()> {
        let out = handout(
            "exist",
            &[
                (
                    "README.md",
                    "See [the book](book/src/intro.md#start), [Rust](https://rust-lang.org) and `testbed/src/lib.rs`, `a/b` (not the repository's), `book/src/ch10-…`, `target/race/`.\n",
                ),
                (
                    "book/src/intro.md",
                    "Back to [the readme](../../README.md); {{#include ../../testbed/src/lib.rs}}; `cargo run -p sync`; `[a](nowhere.md)`.\n",
                ),
            ],
        )?;
        assert_eq!(cites(&out)?, Vec::<String>::new());
        std::fs::remove_dir_all(&out)?;
        Ok(())
    }

    #[test]
    fn what_the_hand_out_leaves_out_is_named_with_its_line() -> Result<()> {
        let out = handout(
            "left-out",
            &[
                (
                    "README.md",
                    "Solutions are in `book/exercises/ch01-deadline`.\nRun `cargo xtask figures` to remake it.\n",
                ),
                (
                    "book/src/intro.md",
                    "The [plan](teachers/plan.md) and the Speaker notes.\nSee xtask/src/cli.rs and `.ci/run`, and [gone](missing.md).\n",
                ),
            ],
        )?;
        assert_eq!(
            cites(&out)?,
            [
                "README.md:1: book/exercises/ch01-deadline",
                "README.md:2: cargo xtask",
                "book/src/intro.md:1: speaker notes",
                "book/src/intro.md:1: teachers/plan.md",
                "book/src/intro.md:2: missing.md",
                "book/src/intro.md:2: .ci/run",
                "book/src/intro.md:2: xtask/src/cli.rs",
            ]
        );
        std::fs::remove_dir_all(&out)?;
        Ok(())
    }

    #[test]
    fn in_rust_only_comments_count() -> Result<()> {
        let out = handout(
            "rust",
            &[(
                "testbed/src/lib.rs",
                "//! Remade by `cargo xtask figures`.\nconst X: &str = \"xtask/\";\n",
            )],
        )?;
        assert_eq!(cites(&out)?, ["testbed/src/lib.rs:1: cargo xtask"]);
        std::fs::remove_dir_all(&out)?;
        Ok(())
    }

    #[test]
    fn a_left_out_folder_that_the_hand_out_holds_is_fine() -> Result<()> {
        let out = handout(
            "held",
            &[("README.md", "The starters: `book/starters/`.\n")],
        )?;
        assert_eq!(cites(&out)?, ["README.md:1: book/starters/"]);
        std::fs::create_dir_all(out.join("book/starters"))?;
        assert_eq!(cites(&out)?, Vec::<String>::new());
        std::fs::remove_dir_all(&out)?;
        Ok(())
    }

    #[test]
    fn repository_only_passages_and_figure_markers_go() {
        let page = "<!-- Made by `cargo xtask figures` from x.cmd: do not edit by hand.\n`cargo xtask figures --check` compares it. -->\n| a |\n<!-- repository-only -->\nsee `xtask/`\n<!-- /repository-only -->\nend";
        assert_eq!(for_students(page), "| a |\nend");
    }
}
