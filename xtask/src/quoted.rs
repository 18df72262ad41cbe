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
//! [`check`] fails when a typed number is not the one its source holds
//! (a hand edit, or a figure remade since), when a source does not
//! exist, when prose types, untagged, a number that a figure the page
//! shows holds (a copy nobody would update), and when a throughput or a
//! CPU time (a number followed by `items/s`, `items a second` or `µs`)
//! names no source at all.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::includes::anchored;

/// Where the figures live, relative to the book's `src`.
const FIGURES: &str = "figures";
/// The opening of a source tag.
const TAG: &str = "<!-- from ";
/// The source of a number no figure holds (a model's prediction, a run
/// the chapter shows in full): `<!-- from elsewhere: WHY -->`.
const ELSEWHERE: &str = "elsewhere";
/// Units that only a measurement carries in this book: a number typed
/// with one of them names its source, whatever page it is on. (A
/// percentage or a millisecond is as often a setting: `--faults
/// nak=0.1`, `--latency 5ms`.)
const UNITS: [&str; 3] = ["items/s", "items a second", "µs"];
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
                problems.push(Problem {
                    line: i + 1,
                    what: format!(
                        "{number} {unit} is a measurement typed without its source: \
                         include it, or name it with <!-- from NAME:ANCHOR -->, \
                         <!-- from NAME: ROW | COLUMN --> or <!-- from elsewhere: WHY -->"
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

/// A value worth catching as a typed copy: a number with a thousands
/// comma or a decimal point, or a percentage (a bare `400` or `20` is as
/// likely an item count or a setting as a copy). Returns its number.
fn distinctive(value: &str) -> Option<String> {
    let number = leading_number(value);
    let marked = number.contains(',') || number.contains('.') || value.trim().ends_with('%');
    (marked && number.chars().any(|c| c.is_ascii_digit() && c != '0')).then_some(number)
}

/// The number a value starts with (`11.9 ms` → `11.9`, `94%` → `94%`).
fn leading_number(value: &str) -> String {
    numbers(value)
        .into_iter()
        .next()
        .map_or_else(|| value.trim().to_owned(), |(n, ..)| n)
}

/// The last number in `text`, if any.
fn last_number(text: &str) -> Option<String> {
    numbers(text).pop().map(|(n, ..)| n)
}

/// The numbers of a line (`1,836`, `0.94`, `94%`), each with whether a
/// source tag follows it and the unit of measurement that follows it, if
/// it is one of [`UNITS`]; numbers inside `{{...}}`, code spans and
/// comments other than tags are skipped.
fn numbers(line: &str) -> Vec<(String, bool, Option<&'static str>)> {
    let mut found = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let (mut i, mut skip_until) = (0, None::<&str>);
    while i < chars.len() {
        let rest: String = chars[i..].iter().take(10).collect();
        if let Some(end) = skip_until {
            if rest.starts_with(end) {
                i += end.chars().count();
                skip_until = None;
            } else {
                i += 1;
            }
            continue;
        }
        if rest.starts_with("{{") {
            skip_until = Some("}}");
        } else if rest.starts_with('`') {
            skip_until = Some("`");
            i += 1;
            continue;
        } else if rest.starts_with("<!--") {
            // A comment, a source tag among them, says no number of the text.
            skip_until = Some("-->");
        }
        if skip_until.is_some() {
            i += 1;
            continue;
        }
        let starts = chars[i].is_ascii_digit() && (i == 0 || !is_word(chars[i - 1]));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len()
            && (chars[j].is_ascii_digit()
                || ((chars[j] == ',' || chars[j] == '.')
                    && chars.get(j + 1).is_some_and(char::is_ascii_digit)))
        {
            j += 1;
        }
        let mut number: String = chars[i..j].iter().collect();
        if chars.get(j) == Some(&'%') {
            number.push('%');
            j += 1;
        }
        // A word glued to the number (`5ms`, `v0`) is a name, not a quote.
        if chars.get(j).is_some_and(|c| is_word(*c)) {
            i = j;
            continue;
        }
        let after: String = chars[j..].iter().collect();
        // Tagged: a source tag follows before any other number, or an
        // `elsewhere` tag follows, which speaks for every number before it.
        let tagged = after.find(TAG).is_some_and(|at| {
            after[at + TAG.len()..].trim_start().starts_with(ELSEWHERE)
                || !after[..at].chars().any(|c| c.is_ascii_digit())
        });
        let unit = UNITS
            .into_iter()
            .find(|unit| after.trim_start().starts_with(unit));
        found.push((number, tagged, unit));
        i = j;
    }
    found
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-' || c == '.' || c == '/'
}

/// The lines of a page a reader reads as prose: not inside code fences,
/// 1-based numbering kept by returning each line's 0-based index.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

#[cfg(test)]
mod tests;
