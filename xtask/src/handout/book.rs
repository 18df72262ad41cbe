//! The hand-out's book: the repository's, without the teachers' pages and
//! without any solution.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::{TEACHERS, copy_tree};

/// The book without its teachers' pages or any solution.
pub(super) fn write(root: &Path, out: &Path) -> Result<()> {
    let from = root.join("book");
    let to = out.join("book");
    std::fs::create_dir_all(&to)?;
    std::fs::copy(from.join("book.toml"), to.join("book.toml"))?;
    copy_tree(&from.join("theme"), &to.join("theme"))?;
    copy_tree(&from.join("src"), &to.join("src"))?;
    let src = to.join("src");
    let teachers = src.join(TEACHERS);
    if teachers.exists() {
        std::fs::remove_dir_all(&teachers)?;
    }
    for page in markdown_pages(&src)? {
        let text = std::fs::read_to_string(&page)?;
        let student = if page.file_name().is_some_and(|n| n == "SUMMARY.md") {
            summary_for_students(&text)
        } else {
            page_for_students(&text)
        };
        std::fs::write(&page, student)?;
    }
    Ok(())
}

/// SUMMARY.md without the teachers' pages (and without a separator left
/// dangling at the end).
fn summary_for_students(text: &str) -> String {
    let mut lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains(&format!("]({TEACHERS}/")))
        .collect();
    while lines
        .last()
        .is_some_and(|l| l.trim().is_empty() || l.trim() == "---")
    {
        lines.pop();
    }
    lines.join("\n") + "\n"
}

/// A page without solutions: no "Solution" block, includes of solutions
/// turned into includes of the exercise files, links to teachers' pages unlinked.
fn page_for_students(text: &str) -> String {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let opens = line.trim_start().starts_with("<details");
        let summary_here = line.contains("<summary>");
        let is_solution = super::answers::teachers_only;
        let solution = opens
            && (if summary_here {
                is_solution(line)
            } else {
                lines.peek().is_some_and(|next| is_solution(next))
            });
        if solution {
            // Skip to the block's end; details do not nest in this book.
            for rest in lines.by_ref() {
                if rest.contains("</details>") {
                    break;
                }
            }
            continue;
        }
        out.push(unlink_teachers(&exercise_file(line)));
    }
    out.join("\n") + "\n"
}

/// A line as the hand-out's reader needs it: an exercise is a file of
/// `exercises/`, run by rustlings or `cargo test --bin`, not a crate of
/// `book/starters/`. Includes of a starter's (or a solution's) `lib.rs`
/// include the exercise's file, which keeps the book's anchors (its
/// modules and tests come after lib.rs's text).
fn exercise_file(line: &str) -> String {
    let mut line = line.to_owned();
    for from in ["../starters/", "../exercises/"] {
        line = replace_names(&line, from, "/src/lib.rs", |n| {
            format!("../../exercises/{}.rs", super::rustlings::ident(n))
        });
    }
    line = replace_names(&line, "`book/starters/", "`", |n| {
        format!("`exercises/{}.rs`", super::rustlings::ident(n))
    });
    replace_names(&line, "cargo test -p ", "", |n| {
        format!("cargo test --bin {}", super::rustlings::ident(n))
    })
}

/// Replaces each `{before}NAME{after}`, NAME an exercise's name (`ch` and
/// a number, or `racing-`, then letters, digits and `-`), with `to(NAME)`.
fn replace_names(line: &str, before: &str, after: &str, to: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(before) {
        out.push_str(&rest[..at]);
        let tail = &rest[at + before.len()..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(tail.len());
        let name = &tail[..len];
        let is_exercise = (name.starts_with("ch")
            && name[2..].starts_with(|c: char| c.is_ascii_digit()))
            || name.starts_with("racing-");
        if is_exercise && tail[len..].starts_with(after) && name.contains('-') {
            out.push_str(&to(name));
            rest = &tail[len + after.len()..];
        } else {
            out.push_str(before);
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// `[text](teachers/page.md)` becomes `text`.
fn unlink_teachers(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('[') {
        let after = &rest[start..];
        let Some(close) = after.find("](") else { break };
        let target = &after[close + 2..];
        let Some(end) = target.find(')') else { break };
        let link = &target[..end];
        if link.starts_with(&format!("{TEACHERS}/")) || link.contains(&format!("/{TEACHERS}/")) {
            out.push_str(&rest[..start]);
            out.push_str(&after[1..close]);
        } else {
            out.push_str(&rest[..start + close + 2 + end + 1]);
        }
        rest = &target[end + 1..];
    }
    out.push_str(rest);
    out
}

fn markdown_pages(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            pages.extend(markdown_pages(&path)?);
        } else if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solution_blocks_go_and_includes_point_at_the_exercise_files() {
        let page = "Intro.\n\n<details>\n<summary>Solution</summary>\n\n```rust\n{{#include ../exercises/ch09-x/src/lib.rs:exercise}}\n```\n\n</details>\n\n<details><summary>Solution</summary>\nmore\n</details>\n\n<details>\n<summary>Speaker notes</summary>\nkept\n</details>\n{{#include ../exercises/ch09-x/src/lib.rs:sorted}}\n";
        let student = page_for_students(page);
        assert!(!student.contains("Solution") && !student.contains("more"));
        assert!(!student.contains("Speaker notes") && !student.contains("kept"));
        assert!(student.contains("{{#include ../../exercises/ch09_x.rs:sorted}}"));
        assert!(!student.contains("/src/lib.rs"), "{student}");
    }

    #[test]
    fn starters_become_the_exercise_files_and_their_commands() {
        let line = "{{#include ../starters/ch08-runtime/src/lib.rs:x}} in `book/starters/ch10-self-wake`: \
                    `cargo test -p ch02-chunks -- --nocapture`, `cargo test -p executor --doc`, `book/starters/`";
        assert_eq!(
            exercise_file(line),
            "{{#include ../../exercises/ch08_runtime.rs:x}} in `exercises/ch10_self_wake.rs`: \
             `cargo test --bin ch02_chunks -- --nocapture`, `cargo test -p executor --doc`, `book/starters/`"
        );
    }

    #[test]
    fn teachers_pages_leave_the_summary_and_links_to_them_go() {
        let summary = "- [One](one.md)\n\n---\n\n[Glossary](glossary.md)\n\n---\n\n[Plan](teachers/plan.md)\n[Solutions](teachers/solutions.md)\n";
        assert_eq!(
            summary_for_students(summary),
            "- [One](one.md)\n\n---\n\n[Glossary](glossary.md)\n"
        );
        assert_eq!(
            unlink_teachers("see [the plan](teachers/plan.md) and [one](one.md)."),
            "see the plan and [one](one.md)."
        );
    }
}
