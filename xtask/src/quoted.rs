//! Measured numbers quoted in the book's prose stay those of their runs.
//!
//! A figure's Markdown (`book/src/figures/NAME.md`) holds the numbers of a
//! real run, and `cargo xtask figures --check` keeps it honest. Prose that
//! quotes one of those numbers does it in one of two ways:
//!
//! - `{{#include figures/NAME.md:ANCHOR}}` inserts the number itself, so a
//!   rerun of the figure changes the prose with it;
//! - or the author types the number and names where it comes from, right
//!   after it, in a comment the reader does not see:
//!   `1,836 items/s<!-- from ch06-fibers:throughput -->` for an anchor of
//!   a figure's data, or `21,837<!-- from race: threads | items/s, 0 ms -->`
//!   for a cell of a figure's table (its row's first cell, then its
//!   column's header).
//!
//! A number that only looks like a figure's (a model's prediction, a run
//! the chapter shows with its own command) says so:
//! `6.8 ms<!-- from elsewhere: the latency model's mean -->`; the tag
//! speaks for every number before it on its line.
//!
//! A number the reader *chooses* is not a measurement: a flag's value, a
//! server's latency, a model's parameter. Inside a code span
//! (`` `--latency 5ms` ``) it is never read; in prose it is followed by
//! `<!-- input -->` (or `<!-- input: WHY -->`), which, like `elsewhere`,
//! speaks for every number before it on its line:
//! `against the 5 ms<!-- input --> server`.
//!
//! [`check`] reads every page of the book and fails when a typed number
//! is not the one its source holds (a hand edit, or a figure remade
//! since), when a source does not exist, when prose types, untagged, a
//! number that a figure the page shows holds (a copy nobody would
//! update), and when a measured number (one followed by a unit of
//! `UNITS`: `items/s`, `items a second`, `µs`, `ms`, `bytes`, `KiB`,
//! `MiB`, `calls`, or a percentage) names no source at all. Since every
//! page quotes its sources, two chapters that quote one source agree.
//!
//! Left alone, so that the check stays quiet where nothing is measured:
//! a number glued to a word (`v0.1`, `5ms`, `ch06`), a number without a
//! unit (chapter and version numbers, counts), the cells of a table the
//! chapter typed (its runs are shown whole with their commands; only its
//! tagged cells are checked), a figure's caption (`<figure ...>`: it
//! names its run's settings, which the figure's `.cmd` holds), code
//! blocks, code spans and `{{#include}}`s.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::includes::anchored;
use scan::{distinctive, last_number, leading_number, numbers, prose_lines};

/// Where the figures live, relative to the book's `src`.
const FIGURES: &str = "figures";
/// The opening of a source tag.
const TAG: &str = "<!-- from ";
/// The source of a number no figure holds (a model's prediction, a run
/// the chapter shows in full): `<!-- from elsewhere: WHY -->`.
const ELSEWHERE: &str = "elsewhere";
/// The opening of an input's tag: `<!-- input -->` or `<!-- input: WHY -->`
/// says that every number before it on its line is a setting the reader
/// chooses (a flag's value, a model's parameter), not a measurement.
const INPUT: &str = "<!-- input";
/// Units of measurement: a number typed with one of them (or with `%`)
/// names its source, or is an input, whatever page it is on. A unit is
/// matched as a whole word (`ms` is not the start of `msgs`).
const UNITS: [&str; 9] = [
    "items/s",
    "items a second",
    "µs",
    "ms",
    "bytes",
    "KiB",
    "MiB",
    "calls",
    "%",
];
/// The anchors of a figure that are measurements (timings and their
/// ratios): a typed copy of one of them is a copy nobody would update.
/// Counts (items, connections) are settings or exact, and coincide with
/// other counts too often to be told apart.
const MEASURED: [&str; 8] = [
    "throughput",
    "ideal",
    "efficiency",
    "elapsed",
    "p50",
    "p99",
    "max",
    "mean-service",
];

/// One problem found on a page.
#[derive(Debug, PartialEq)]
pub struct Problem {
    /// 1-based line of the page.
    pub line: usize,
    /// What is wrong and how to fix it.
    pub what: String,
}

/// `check-book`'s part: fails, listing every problem, if a page's
/// numbers disagree with their figures.
pub fn check_book(root: &Path) -> Result<()> {
    let problems = check(&root.join("book/src"))?;
    if !problems.is_empty() {
        bail!(
            "numbers in the prose disagree with the figures they come from:\n  {}",
            problems.join("\n  ")
        );
    }
    println!("numbers quoted from figures: each is its figure's");
    Ok(())
}

/// Checks every page of the book in `src` (the figures and the teachers'
/// notes aside); returns each problem as `page:line: what`.
pub fn check(src: &Path) -> Result<Vec<String>> {
    let figures = src.join(FIGURES);
    let mut problems = Vec::new();
    let mut pages: Vec<_> = std::fs::read_dir(src)
        .with_context(|| format!("cannot read {}", src.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    for page in pages {
        let text = std::fs::read_to_string(&page)?;
        let read = |name: &str| std::fs::read_to_string(figures.join(format!("{name}.md"))).ok();
        for p in check_page(&text, read) {
            problems.push(format!(
                "{}:{}: {}",
                page.file_name().unwrap_or_default().to_string_lossy(),
                p.line,
                p.what
            ));
        }
    }
    Ok(problems)
}

/// The problems of one page, `read` giving a figure's Markdown by name.
///
/// ```
/// use xtask::quoted::check_page;
///
/// let figure = "<!--\nANCHOR: throughput\n1,836\nANCHOR_END: throughput\n-->\n";
/// let read = |name: &str| (name == "f").then(|| figure.to_owned());
/// let page = "It did 1,836 items/s<!-- from f:throughput --> on one thread.\n";
/// assert!(check_page(page, read).is_empty());
/// // A hand edit of the number fails.
/// let edited = page.replace("1,836", "1,900");
/// assert_eq!(check_page(&edited, read).len(), 1);
/// // So does the number typed without its source, once the page shows `f`.
/// let untagged = "![](figures/f.svg)\nIt did 1,836 items/s.\n";
/// assert_eq!(check_page(untagged, read).len(), 1);
/// ```
pub fn check_page(text: &str, read: impl Fn(&str) -> Option<String>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut cache: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut figure = |name: &str| {
        cache
            .entry(name.to_owned())
            .or_insert_with(|| read(name))
            .clone()
    };
    // The distinctive numbers of every figure the page shows, for the
    // untagged copies.
    let mut shown: BTreeMap<String, String> = BTreeMap::new();
    for name in shown_figures(text) {
        let Some(md) = figure(&name) else { continue };
        let anchors = anchors(&md);
        // A figure of runs names its measured numbers by anchor; a table
        // made elsewhere (the race's) by its cells.
        let quotable: Vec<(String, String)> = if anchors.is_empty() {
            cells(&md)
                .into_iter()
                .map(|(row, column, value)| (format!(" {row} | {column}"), value))
                .collect()
        } else {
            anchors
                .into_iter()
                .filter(|(anchor, _)| {
                    MEASURED.contains(
                        &anchor.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-'),
                    )
                })
                .collect()
        };
        for (what, value) in quotable {
            if let Some(number) = distinctive(&value) {
                shown.entry(number).or_insert(format!("{name}:{what}"));
            }
        }
    }
    for (i, line) in prose_lines(text) {
        let mut rest = line;
        let mut before = String::new();
        while let Some(at) = rest.find(TAG) {
            let (head, tail) = rest.split_at(at);
            before.push_str(head);
            let Some(end) = tail.find("-->") else {
                problems.push(Problem {
                    line: i + 1,
                    what: "a source tag ends on the line it starts on".into(),
                });
                break;
            };
            let source = tail[TAG.len()..end].trim();
            match value_of(source, &mut figure) {
                Err(why) => problems.push(Problem {
                    line: i + 1,
                    what: format!("<!-- from {source} -->: {why}"),
                }),
                Ok(None) => {}
                Ok(Some(value)) => {
                    let want = leading_number(&value);
                    let typed = last_number(&before);
                    if typed.as_deref() != Some(want.as_str()) {
                        problems.push(Problem {
                            line: i + 1,
                            what: format!(
                                "the number before <!-- from {source} --> is {}, its source says \
                                 {value}: type {want}, or include it with {{{{#include}}}}",
                                typed.as_deref().unwrap_or("missing"),
                            ),
                        });
                    }
                }
            }
            // The tagged number is spoken for.
            before.clear();
            rest = &tail[end + 3..];
        }
        // A table the chapter typed holds runs of its own, shown whole
        // with their commands; only its tagged cells are checked.
        if line.starts_with('|') {
            continue;
        }
        // A figure's caption names the settings of its run, which the
        // figure's `.cmd` holds.
        if line.trim_start().starts_with("<figure") {
            continue;
        }
        for (number, tagged, unit) in numbers(line) {
            if tagged {
                continue;
            }
            if let Some(source) = shown.get(&number) {
                problems.push(Problem {
                    line: i + 1,
                    what: format!(
                        "{number} is typed without its source, and figure {source} holds it: \
                         write {number}<!-- from {source} --> or include it"
                    ),
                });
            } else if let Some(unit) = unit {
                let quoted = if unit == "%" {
                    number.clone()
                } else {
                    format!("{number} {unit}")
                };
                problems.push(Problem {
                    line: i + 1,
                    what: format!(
                        "{quoted} is a measurement typed without its source: \
                         include it, or name it with <!-- from NAME:ANCHOR -->, \
                         <!-- from NAME: ROW | COLUMN --> or <!-- from elsewhere: WHY -->; \
                         a setting is put in a code span or followed by <!-- input -->"
                    ),
                });
            }
        }
    }
    problems
}

/// The value a source names: `NAME:ANCHOR` or `NAME: ROW | COLUMN`;
/// `None` for `elsewhere: WHY`.
fn value_of(
    source: &str,
    figure: &mut impl FnMut(&str) -> Option<String>,
) -> Result<Option<String>, String> {
    let (name, what) = source
        .split_once(':')
        .ok_or("a source is NAME:ANCHOR, NAME: ROW | COLUMN or elsewhere: WHY")?;
    let name = name.trim();
    if name == ELSEWHERE {
        return Ok(None);
    }
    let md = figure(name).ok_or(format!("no figure {FIGURES}/{name}.md"))?;
    match what.split_once('|') {
        None => anchored(&md, what.trim())
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .map(Some)
            .ok_or(format!("figure {name} has no anchor `{}`", what.trim())),
        Some((row, column)) => {
            let (row, column) = (row.trim(), column.trim());
            cells(&md)
                .into_iter()
                .find(|(r, c, _)| r == row && c == column)
                .map(|(_, _, value)| Some(value))
                .ok_or(format!(
                    "figure {name} has no table cell `{row} | {column}`"
                ))
        }
    }
}

/// Every cell of the tables of `md`: (its row's first cell, its column's
/// header, its text). The first table with a given row and column wins.
fn cells(md: &str) -> Vec<(String, String, String)> {
    let split = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let mut found = Vec::new();
    let mut header: Option<Vec<String>> = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let row = split(line);
        match &header {
            None => header = Some(row),
            Some(_) if row.iter().all(|c| c.chars().all(|c| "-:".contains(c))) => {}
            Some(columns) => {
                for (column, value) in columns.iter().zip(&row).skip(1) {
                    found.push((row[0].clone(), column.clone(), value.clone()));
                }
            }
        }
    }
    found
}

/// Every anchor of a figure's Markdown with its value.
fn anchors(md: &str) -> Vec<(String, String)> {
    md.lines()
        .filter_map(|l| l.strip_prefix("ANCHOR: "))
        .filter_map(|name| Some((name.to_owned(), anchored(md, name)?.trim().to_owned())))
        .collect()
}

/// The figures a page shows: every `figures/NAME.` it mentions.
fn shown_figures(text: &str) -> Vec<String> {
    let prefix = format!("{FIGURES}/");
    let mut names: Vec<String> = text
        .match_indices(&prefix)
        .filter_map(|(at, _)| {
            let name: String = text[at + prefix.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

mod scan;
#[cfg(test)]
mod tests;
