//! What a hand-out must not carry, beyond the solutions themselves: the
//! teachers' blocks of the chapters, and links to pages it leaves out.
//!
//! A chapter's speaker notes are the teacher's script: the questions to
//! ask the class, and often their answers. The hand-out drops them with
//! the solution blocks ([`teachers_only`]), and [`check`] makes sure that
//! none is left, that no page of the hand-out's book holds a line of a
//! solution's marked region, and that every link of the built book leads
//! to a file that is there (a link to a teachers' page the hand-out left
//! out would be a dead one) and, when it names an `#anchor`, to an element
//! of that page with that `id` (a heading renamed since leaves its links
//! landing at the top of the page, with nothing to say so).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::starters::EXERCISES;

/// Is a `<details>` block with this summary line for teachers only? The
/// solutions, and the speaker notes.
pub fn teachers_only(summary_line: &str) -> bool {
    summary_line.split("<summary>").nth(1).is_some_and(|s| {
        let s = s.trim_start().to_lowercase();
        s.starts_with("solution") || s.starts_with("speaker notes")
    })
}

/// Checks the hand-out in `out`: its book's sources (`book/src`) keep no
/// teachers' block and no line of `solution_lines`, and its built book
/// (`book/book`) has no dead link.
pub fn check(out: &Path, solution_lines: &[(String, String)]) -> Result<()> {
    let mut problems = page_problems(&out.join("book/src"), solution_lines)?;
    problems.extend(dead_links(&out.join("book/book"))?);
    if !problems.is_empty() {
        bail!(
            "the hand-out's book gives away answers or has dead links:\n  {}",
            problems.join("\n  ")
        );
    }
    println!("hand-out book: no speaker notes, no solution line, no dead link");
    Ok(())
}

/// The lines of every solution's marked regions that would give it away,
/// each with its exercise:
/// long enough to mean something, not comments, and nowhere in the
/// hand-out's own sources (a line the starter or a stage also has reveals
/// nothing).
pub fn solution_lines(root: &Path, out: &Path, names: &[String]) -> Result<Vec<(String, String)>> {
    let mut sources = String::new();
    for dir in ["testbed", "bench", "exercises"] {
        gather(&out.join(dir), &mut sources)?;
    }
    for entry in std::fs::read_dir(out)? {
        let path = entry?.path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('0'))
        {
            gather(&path, &mut sources)?;
        }
    }
    let mut lines = Vec::new();
    for name in names {
        let mut solution = String::new();
        gather(&root.join(EXERCISES).join(name).join("src"), &mut solution)?;
        for line in regions(&solution) {
            let line = line.trim();
            if line.len() >= 16 && !line.starts_with("//") && !sources.contains(line) {
                lines.push((name.clone(), line.to_owned()));
            }
        }
    }
    Ok(lines)
}

/// Teachers' blocks and solution lines left in the pages under `src`.
fn page_problems(src: &Path, solution_lines: &[(String, String)]) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    for page in files(src, "md")? {
        let text = std::fs::read_to_string(&page)?;
        let name = page
            .strip_prefix(src)
            .unwrap_or(&page)
            .display()
            .to_string();
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let summary = if line.contains("<summary>") {
                Some(*line)
            } else if line.trim_start().starts_with("<details") {
                lines.get(n + 1).copied()
            } else {
                None
            };
            if summary.is_some_and(teachers_only) && !line.contains("<details") {
                continue; // Reported at its `<details>` line.
            }
            if summary.is_some_and(teachers_only) {
                problems.push(format!(
                    "{name}:{}: a teachers' block (speaker notes or a solution)",
                    n + 1
                ));
            }
            // `../../exercises/NAME.rs` is the student's own file.
            if line
                .replace("../../exercises/", "")
                .contains("../exercises/")
            {
                problems.push(format!("{name}:{}: includes a solution crate", n + 1));
            }
            let trimmed = line.trim();
            if let Some((exercise, leak)) = solution_lines
                .iter()
                .find(|(_, l)| trimmed.contains(l.as_str()))
            {
                problems.push(format!(
                    "{name}:{}: a line of {exercise}'s solution: {leak}",
                    n + 1
                ));
            }
        }
    }
    Ok(problems)
}

/// Links in the built book (`href="..."` and `src="..."` to files of the
/// book) that lead nowhere: to no file, or to an `#anchor` that the page
/// they lead to has no element for.
fn dead_links(built: &Path) -> Result<Vec<String>> {
    let mut dead = Vec::new();
    // The ids of each page, read once.
    let mut ids: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for page in files(built, "html")? {
        let html = std::fs::read_to_string(&page)?;
        let dir = page.parent().unwrap_or(built);
        for attribute in ["href=\"", "src=\""] {
            for link in html
                .split(attribute)
                .skip(1)
                .filter_map(|s| s.split('"').next())
            {
                if link.contains("://")
                    || link.starts_with("mailto:")
                    || link.starts_with("data:")
                    || link.starts_with("javascript:")
                {
                    continue;
                }
                let (file, anchor) = match link.split_once('#') {
                    Some((file, anchor)) => (file, Some(percent_decoded(anchor))),
                    None => (link, None),
                };
                let file = file.split('?').next().unwrap_or_default();
                let target = if file.is_empty() {
                    page.clone()
                } else if let Some(rooted) = file.strip_prefix('/') {
                    built.join(rooted)
                } else {
                    dir.join(file)
                };
                let name = page.strip_prefix(built).unwrap_or(&page).display();
                if !target.exists() {
                    dead.push(format!("{name}: dead link to {link}"));
                    continue;
                }
                let Some(anchor) = anchor.filter(|a| !a.is_empty()) else {
                    continue;
                };
                if target.extension().is_none_or(|e| e != "html") {
                    continue;
                }
                if !ids.contains_key(&target) {
                    let text = std::fs::read_to_string(&target).unwrap_or_default();
                    ids.insert(target.clone(), ids_of(&text));
                }
                if !ids[&target].contains(&anchor) {
                    dead.push(format!(
                        "{name}: dead link to {link}: the page has no element with id \"{anchor}\""
                    ));
                }
            }
        }
    }
    dead.sort();
    dead.dedup();
    Ok(dead)
}

/// Every `id="..."` of a page.
fn ids_of(html: &str) -> BTreeSet<String> {
    html.split(" id=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(str::to_owned)
        .collect()
}

/// `%C3%B9` → `ù`: an anchor as the page's `id` spells it.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The lines inside the marked regions of a solution.
pub fn regions(text: &str) -> Vec<&str> {
    let mut inside = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("// EXERCISE-BEGIN") {
            inside = true;
        } else if trimmed.starts_with("// EXERCISE-END") {
            inside = false;
        } else if inside {
            lines.push(line);
        }
    }
    lines
}

/// Appends every text file under `dir` to `into`.
pub fn gather(dir: &Path, into: &mut String) -> Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.file_name().is_some_and(|n| n == "target") {
            continue;
        }
        if path.is_dir() {
            gather(&path, into)?;
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            into.push_str(&text);
            into.push('\n');
        }
    }
    Ok(())
}

/// Every file under `dir` whose name ends in `.ext`.
fn files(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    if !dir.exists() {
        return Ok(found);
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            found.extend(files(&path, ext)?);
        } else if path.extension().is_some_and(|e| e == ext) {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch hand-out with one page and one built page.
    fn handout(name: &str, page: &str, html: &str) -> Result<PathBuf> {
        let out = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
        std::fs::create_dir_all(out.join("book/src"))?;
        std::fs::create_dir_all(out.join("book/book"))?;
        std::fs::write(out.join("book/src/ch01.md"), page)?;
        std::fs::write(out.join("book/book/ch01.html"), html)?;
        std::fs::write(
            out.join("book/book/glossary.html"),
            "<h2 id=\"x\">X</h2><h2 id=\"più\">più</h2>",
        )?;
        Ok(out)
    }

    const SOLUTION: &str = "self.inner.set_read_timeout(Some(left))?;";

    #[test]
    fn speaker_notes_and_solutions_are_for_teachers_only() {
        assert!(teachers_only("<summary>Speaker notes</summary>"));
        assert!(teachers_only("<details><summary>Solution</summary>"));
        assert!(!teachers_only("<summary>Why not threads?</summary>"));
    }

    #[test]
    fn a_speaker_note_with_a_solution_region_fails_the_check() -> Result<()> {
        let page = format!(
            "# One\n\n<details>\n<summary>Speaker notes</summary>\n\n```rust\n{SOLUTION}\n```\n\n</details>\n"
        );
        let out = handout("note", &page, "<a href=\"glossary.html\">ok</a>")?;
        let result = check(&out, &[("ch01-deadline".to_owned(), SOLUTION.to_owned())]);
        std::fs::remove_dir_all(&out)?;
        let error = format!(
            "{:#}",
            result.expect_err("a speaker note with a solution must fail")
        );
        assert!(error.contains("ch01.md:3: a teachers' block"), "{error}");
        assert!(
            error.contains("a line of ch01-deadline's solution"),
            "{error}"
        );
        Ok(())
    }

    #[test]
    fn a_dead_link_fails_the_check() -> Result<()> {
        let html = "<a href=\"glossary.html#x\">ok</a> <a href=\"teachers/solutions.html\">gone</a> \
                    <a href=\"https://example.invalid/\">out</a> <a href=\"glossary.html#pi%C3%B9\">ok</a> \
                    <a href=\"glossary.html#stage-2-fork\">renamed</a> <a href=\"#top\">here</a>";
        let out = handout("link", "# One\n", html)?;
        let result = check(&out, &[("ch01-deadline".to_owned(), SOLUTION.to_owned())]);
        std::fs::remove_dir_all(&out)?;
        let error = format!("{:#}", result.expect_err("a dead link must fail"));
        assert!(
            error.contains("ch01.html: dead link to teachers/solutions.html"),
            "{error}"
        );
        // An anchor the page it names does not have is as dead.
        assert!(
            error.contains(
                "ch01.html: dead link to glossary.html#stage-2-fork: the page has no element with id \"stage-2-fork\""
            ),
            "{error}"
        );
        assert!(error.contains("dead link to #top"), "{error}");
        assert!(!error.contains("#x") && !error.contains("pi%C3"), "{error}");
        assert!(!error.contains("example"), "{error}");
        Ok(())
    }

    #[test]
    fn a_clean_handout_passes() -> Result<()> {
        let out = handout(
            "clean",
            "# One\n\nNothing to see.\n",
            "<a href=\"glossary.html\">ok</a>",
        )?;
        let result = check(&out, &[("ch01-deadline".to_owned(), SOLUTION.to_owned())]);
        std::fs::remove_dir_all(&out)?;
        result
    }
}
