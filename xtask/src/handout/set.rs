//! The exercise set around the files: `info.toml` (the exercises in the
//! book's order, each with its hint) and the `Cargo.toml` whose `bin` list
//! rustlings checks, byte for byte, against the one it would write.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::rustlings::ident;
use crate::starters::{EXERCISES, exercises};

/// The `info.toml` format this set is written in (rustlings 6).
const FORMAT_VERSION: u8 = 1;

/// Where the book asks for an exercise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The exercise's folder name (`ch06-channel`).
    pub name: String,
    /// The chapter's page (`ch06-fibers.md`).
    pub page: String,
    /// The chapter's title, its first heading.
    pub chapter: String,
    /// The heading of the section that includes the exercise.
    pub section: String,
}

/// Every exercise, in the order the book asks for them: the chapters in
/// `SUMMARY.md`'s order, and within a chapter by the line that includes
/// its starter (`../starters/NAME/...`), or else by the first line that
/// names it (`cargo test -p NAME`).
pub fn book_order(root: &Path) -> Result<Vec<Place>> {
    let src = root.join("book/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md"))?;
    let names = exercises(root)?;
    // (how it was found: 0 included, 1 named; page; line) -> place
    let mut found: Vec<((u8, usize, usize), Place)> = Vec::new();
    // The numbered chapters only (`- [Title](page.md)`), not the
    // introduction or the appendices.
    let pages = summary.lines().filter_map(|l| {
        let target = l
            .strip_prefix("- [")?
            .split("](")
            .nth(1)?
            .split(')')
            .next()?;
        (!target.contains('/')).then(|| target.to_owned())
    });
    for (page_index, page) in pages.enumerate() {
        let text = std::fs::read_to_string(src.join(&page))?;
        let mut chapter = String::new();
        let mut section = String::new();
        for (n, line) in text.lines().enumerate() {
            if let Some(title) = line.strip_prefix("# ") {
                if chapter.is_empty() {
                    chapter = title.trim().to_owned();
                }
            } else if line.starts_with("## ") || line.starts_with("### ") {
                section = line.trim_start_matches('#').trim().to_owned();
            }
            for name in &names {
                let how = if line.contains(&format!("starters/{name}/")) {
                    0
                } else if names_it(line, name) {
                    1
                } else {
                    continue;
                };
                found.push((
                    (how, page_index, n),
                    Place {
                        name: name.clone(),
                        page: page.clone(),
                        chapter: chapter.clone(),
                        section: section.clone(),
                    },
                ));
            }
        }
    }
    found.sort_by_key(|(key, _)| *key);
    let mut places: Vec<((usize, usize), Place)> = Vec::new();
    for ((_, page, line), place) in found {
        if !places.iter().any(|(_, p)| p.name == place.name) {
            places.push(((page, line), place));
        }
    }
    places.sort_by_key(|(at, _)| *at);
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !places.iter().any(|(_, p)| &p.name == *n))
        .collect();
    if !missing.is_empty() {
        bail!("no chapter names these exercises, so they have no place in the set: {missing:?}");
    }
    Ok(places.into_iter().map(|(_, p)| p).collect())
}

/// Does `line` name the exercise `name` as a word of its own?
fn names_it(line: &str, name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    line.match_indices(name)
        .any(|(at, _)| !line[..at].ends_with(word) && !line[at + name.len()..].starts_with(word))
}

/// The questions of an exercise's marked regions, in order.
fn questions(root: &Path, name: &str) -> Result<Vec<String>> {
    let dir = root.join(EXERCISES).join(name).join("src");
    let mut files: Vec<_> = std::fs::read_dir(&dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    files.sort();
    let mut questions = Vec::new();
    for file in files {
        for line in std::fs::read_to_string(&file)?.lines() {
            if let Some(q) = line.trim().strip_prefix("// EXERCISE-BEGIN:") {
                questions.push(q.trim().to_owned());
            }
        }
    }
    Ok(questions)
}

/// `info.toml`: a welcome, the exercises with their hints, a farewell.
///
/// An exercise whose file has no `#[test]` (ch02-respawn: its checks fork,
/// so its `main` runs them) is `test = false`: rustlings then counts it
/// solved once its binary, run, exits with success.
pub fn info_toml(root: &Path, places: &[Place], out: &Path) -> Result<String> {
    let mut text = format!(
        "# The exercises of the async-ladder book, in its order, for rustlings.\n\
         # Generated with this copy of the book.\n\
         format_version = {FORMAT_VERSION}\n\n\
         welcome_message = \"\"\"{WELCOME}\"\"\"\n\n\
         final_message = \"\"\"{FAREWELL}\"\"\"\n"
    );
    for place in places {
        let questions = questions(root, &place.name)?;
        let mut hint = format!(
            "Reread \"{}\" in the chapter \"{}\" (book/src/{}).\n\
             The questions in this exercise's TODOs:",
            place.section, place.chapter, place.page
        );
        for q in questions {
            write!(hint, "\n- {q}")?;
        }
        hint.push_str(
            "\nWhen tests fail the way a known mistake does, the lines starting `hint:` \
             below the tests' output ask about it.",
        );
        let file = out
            .join("exercises")
            .join(format!("{}.rs", ident(&place.name)));
        let tested = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", file.display()))?
            .contains("#[test]\n");
        write!(
            text,
            "\n[[exercises]]\nname = \"{}\"\n{}hint = \"\"\"\n{}\"\"\"\n",
            ident(&place.name),
            if tested { "" } else { "test = false\n" },
            hint.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"")
        )?;
    }
    Ok(text)
}

// Lines of at most 72 characters: rustlings prints them as they are.
const WELCOME: &str = "Welcome to the async-ladder exercises: one per idea of the book,
from a deadline on a blocking socket to a runtime of your own.

Each exercise is a file in exercises/. Write your code between a
`// TODO:` line and its `// END TODO` line, and only there: the
question on the TODO line is where to start, the book's chapter
(`mdbook serve book --open`) explains the idea, and the tests below
your code say when you are done.";

const FAREWELL: &str = "Every exercise passes: you have built, by hand, what an async
runtime does. The book's racing chapter races the stages against tokio.";

/// The hand-out's root manifest: the package rustlings builds the
/// exercises in (with the solutions, in the teachers' copy), depending on
/// every crate an exercise uses, and the workspace of the ladder's crates.
pub fn manifest(root: &Path, places: &[Place], out: &Path) -> Result<String> {
    let mut bins = String::from("bin = [\n");
    for place in places {
        let name = ident(&place.name);
        writeln!(
            bins,
            "  {{ name = \"{name}\", path = \"exercises/{name}.rs\" }},"
        )?;
        if out.join("solutions").join(format!("{name}.rs")).is_file() {
            writeln!(
                bins,
                "  {{ name = \"{name}_sol\", path = \"solutions/{name}.rs\" }},"
            )?;
        }
    }
    bins.push(']');

    // Every dependency of any exercise, dev-dependencies too: ch02-respawn's
    // checks run in the binary itself, outside `cargo test`.
    let mut dependencies = BTreeSet::new();
    for place in places {
        let manifest =
            std::fs::read_to_string(root.join(EXERCISES).join(&place.name).join("Cargo.toml"))?;
        let mut in_dependencies = false;
        for line in manifest.lines() {
            if line.starts_with('[') {
                in_dependencies = line.ends_with("dependencies]");
            } else if in_dependencies && line.contains(".workspace = true") {
                dependencies.insert(line.trim().to_owned());
            }
        }
    }

    let repository = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let workspace = workspace_section(&repository)?;
    Ok(format!(
        "# rustlings runs each exercise as a binary of this package, and checks\n\
         # this list against `info.toml`: both were written together.\n\
         {bins}\n\n\
         [package]\n\
         name = \"exercises\"\n\
         description = \"The async-ladder exercises, one binary each, for rustlings.\"\n\
         version.workspace = true\n\
         edition.workspace = true\n\
         rust-version.workspace = true\n\
         license.workspace = true\n\
         publish = false\n\n\
         [dependencies]\n{}\n\n{workspace}",
        dependencies.into_iter().collect::<Vec<_>>().join("\n")
    ))
}

/// The repository's `[workspace]` and what follows it, with the members
/// the hand-out has.
fn workspace_section(manifest: &str) -> Result<String> {
    let start = manifest
        .find("[workspace]")
        .context("the repository's Cargo.toml has no [workspace]")?;
    let mut lines = Vec::new();
    let mut skipping = false;
    for line in manifest[start..].lines() {
        if line.starts_with("members = [") {
            skipping = !line.trim_end().ends_with(']');
            lines.push("members = [\"testbed\", \"0*\", \"bench\", \"spec\"]");
            continue;
        }
        if skipping {
            skipping = !line.trim_start().starts_with(']');
            continue;
        }
        lines.push(line);
    }
    Ok(lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exercise_has_a_place_in_the_book_in_chapter_order() -> Result<()> {
        let root = crate::cargo::workspace_root();
        let places = book_order(&root)?;
        assert_eq!(places.len(), exercises(&root)?.len());
        let pages: Vec<&str> = places.iter().map(|p| p.page.as_str()).collect();
        let mut sorted = pages.clone();
        sorted.sort_by_key(|p| if p.starts_with("ch") { 0 } else { 1 });
        assert_eq!(pages, sorted, "the chapters' exercises first, in order");
        assert_eq!(places[0].name, "ch01-deadline");
        assert!(places.iter().all(|p| !p.section.is_empty()));
        Ok(())
    }

    #[test]
    fn the_messages_fit_a_terminal() {
        for line in WELCOME.lines().chain(FAREWELL.lines()) {
            assert!(
                line.chars().count() <= 72,
                "too long for a terminal: {line:?}"
            );
        }
    }

    #[test]
    fn a_name_is_found_as_a_word_only() {
        assert!(names_it(
            "run `cargo test -p ch08-runtime stage_3`",
            "ch08-runtime"
        ));
        assert!(names_it("exercise `ch08-runtime`.", "ch08-runtime"));
        assert!(!names_it("`ch08-runtime-x`", "ch08-runtime"));
        assert!(!names_it("xch08-runtime", "ch08-runtime"));
    }

    #[test]
    fn the_manifest_lists_a_bin_per_exercise_and_drops_the_repositorys_own_members() -> Result<()> {
        let root = crate::cargo::workspace_root();
        let places = book_order(&root)?;
        let text = manifest(&root, &places[..1], Path::new("/nonexistent"))?;
        assert!(text.starts_with("# rustlings"));
        assert!(text.contains(
            "bin = [\n  { name = \"ch01_deadline\", path = \"exercises/ch01_deadline.rs\" },\n]"
        ));
        assert!(text.contains("members = [\"testbed\", \"0*\", \"bench\", \"spec\"]"));
        assert!(!text.contains("xtask") && !text.contains("book/exercises"));
        assert!(text.contains("testbed.workspace = true"));
        Ok(())
    }
}
