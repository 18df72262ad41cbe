//! Terms before use: a reader meets no glossary term before the chapter
//! that defines it, unless that first meeting is a link to its definition.
//!
//! The glossary (`book/src/glossary.md`) is the list. Each entry is a
//! paragraph that opens with its terms in bold, then says where the book
//! defines them:
//!
//! ```text
//! <a id="floor"></a>**Floor, × floor** (the racing chapter). ...
//! ```
//!
//! `(chapter 8)`, `(chapters 6 and 7)` (the first one counts), `(the
//! racing chapter)` or `(the introduction)`; an entry that names no place
//! is defined in the introduction. The terms are the bold words, split at
//! commas and `and`, with backticks dropped; a term is found in prose as a
//! whole word, in any case, plural or not.
//!
//! Reading the pages in `SUMMARY.md`'s order, the first use of a term on a
//! page before its defining one must be a link (`[the floor](glossary.md#floor)`,
//! or to the defining page); after that link the reader has a way to it.
//! Code, code spans, comments, includes and link targets are not prose.
//! The glossary itself and the pages after the defining one are free.
//! Only the first page that fails is named for each term (a link there
//! may fix the pages after it); `TERMS_ALL=1` names every page before the
//! definition whose first use is not a link.

use std::path::Path;

use anyhow::{Context, Result, bail};

/// The glossary's file name, in the book's `src`.
const GLOSSARY: &str = "glossary.md";

/// One glossary entry: its terms and the page that defines them.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The terms, lower case (`floor`, `× floor`).
    pub terms: Vec<String>,
    /// The page that defines them (`racing.md`).
    pub page: String,
}

/// `check-book`'s part: fails, listing every term used too early.
pub fn check_book(root: &Path) -> Result<()> {
    let (entries, pages) = load(&root.join("book/src"))?;
    let problems = check(&entries, &pages);
    if !problems.is_empty() {
        bail!(
            "terms used before the book defines them, in reading order:\n  {}",
            problems.join("\n  ")
        );
    }
    let terms: usize = entries.iter().map(|e| e.terms.len()).sum();
    println!("glossary terms: {terms} checked, each defined or linked before it is used");
    Ok(())
}

/// A page of the book: its file name and its text.
pub type Page = (String, String);

/// The glossary's entries and the book's pages in reading order, from the
/// book's `src`.
pub fn load(src: &Path) -> Result<(Vec<Entry>, Vec<Page>)> {
    let read = |name: &str| {
        std::fs::read_to_string(src.join(name)).with_context(|| format!("cannot read {name}"))
    };
    let order = reading_order(&read("SUMMARY.md")?);
    let entries = glossary(&read(GLOSSARY)?, &order)?;
    let mut pages = Vec::new();
    for name in &order {
        pages.push((name.clone(), read(name)?));
    }
    Ok((entries, pages))
}

/// The book's pages in reading order: every `(NAME.md)` of `SUMMARY.md`.
pub fn reading_order(summary: &str) -> Vec<String> {
    summary
        .lines()
        .filter_map(|line| {
            let start = line.find("](")? + 2;
            let end = start + line[start..].find(')')?;
            let target = &line[start..end];
            target.ends_with(".md").then(|| target.to_owned())
        })
        .collect()
}

/// The glossary's entries, each with the page that defines its terms.
pub fn glossary(text: &str, order: &[String]) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for paragraph in text.split("\n\n") {
        let paragraph = paragraph.trim();
        // An anchor may come first: `<a id="floor"></a>**Floor**`.
        let body = match paragraph.strip_prefix("<a id=") {
            Some(rest) => rest.split_once("</a>").map_or(rest, |(_, b)| b),
            None => paragraph,
        };
        let Some(body) = body.strip_prefix("**") else {
            continue;
        };
        let Some((head, rest)) = body.split_once("**") else {
            continue;
        };
        let terms = head
            .trim_end_matches('.')
            .replace(" and ", ", ")
            .split(", ")
            .map(|t| t.replace('`', "").trim().to_lowercase())
            .filter(|t| !t.is_empty())
            .collect();
        let place = rest
            .trim_start()
            .strip_prefix('(')
            .and_then(|r| r.split_once(')'))
            .map_or("", |(p, _)| p);
        let page = defining_page(place, order)
            .with_context(|| format!("glossary entry **{head}**: ({place}) is no page"))?;
        entries.push(Entry { terms, page });
    }
    Ok(entries)
}

/// The page a glossary entry's place names: `chapter 8` (the first of
/// `chapters 6 and 7`), `the racing chapter`, or the introduction.
fn defining_page(place: &str, order: &[String]) -> Option<String> {
    let find = |prefix: &str| order.iter().find(|p| p.starts_with(prefix)).cloned();
    if let Some(rest) = place
        .strip_prefix("chapters ")
        .or_else(|| place.strip_prefix("chapter "))
    {
        let number: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let number: usize = number.parse().ok()?;
        return find(&format!("ch{number:02}-"));
    }
    if place.contains("racing") {
        return find("racing");
    }
    find("introduction")
}

/// Every term used too early on `pages` (name, text, in reading order),
/// as `PAGE:LINE: what to do`.
pub fn check(entries: &[Entry], pages: &[Page]) -> Vec<String> {
    let mut problems = Vec::new();
    let proses: Vec<Prose> = pages.iter().map(|(_, text)| Prose::of(text)).collect();
    for entry in entries {
        let Some(defined_at) = pages.iter().position(|(n, _)| *n == entry.page) else {
            continue;
        };
        for term in &entry.terms {
            for ((name, text), prose) in pages[..defined_at].iter().zip(&proses) {
                if name == GLOSSARY {
                    continue;
                }
                let Some(first) = prose.uses(term).next() else {
                    continue;
                };
                if prose.linked(first, &entry.page) {
                    // The reader has a way to the definition from here on.
                    break;
                }
                let line = text[..first].matches('\n').count() + 1;
                problems.push(format!(
                    "{name}:{line}: \"{term}\" is used before {} defines it: \
                     make this first use a link to its definition \
                     ([{term}]({GLOSSARY}#...) or {}), or say it otherwise",
                    entry.page, entry.page
                ));
                if std::env::var_os("TERMS_ALL").is_none() {
                    break;
                }
            }
        }
    }
    problems
}

/// A page as prose: its text with everything that is not prose (code,
/// comments, includes, link targets) blanked, offsets kept.
struct Prose<'a> {
    text: &'a str,
    blank: Vec<u8>,
}

impl<'a> Prose<'a> {
    fn of(text: &'a str) -> Self {
        let mut blank = text.as_bytes().to_vec();
        // Blanks bytes, keeping line ends (and so line numbers); a blanked
        // character of several bytes becomes as many spaces.
        let clear = |blank: &mut Vec<u8>, from: usize, to: usize| {
            for b in &mut blank[from..to] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        };
        // Fenced code blocks.
        let mut at = 0;
        let mut fence: Option<usize> = None;
        for line in text.split_inclusive('\n') {
            if line.trim_start().starts_with("```") {
                match fence.take() {
                    Some(start) => clear(&mut blank, start, at + line.len()),
                    None => fence = Some(at),
                }
            }
            at += line.len();
        }
        if let Some(start) = fence {
            clear(&mut blank, start, text.len());
        }
        // Comments, includes, code spans and link targets, by their
        // delimiters, in text no longer blanked.
        for (open, close) in [("<!--", "-->"), ("{{", "}}"), ("`", "`"), ("](", ")")] {
            let mut from = 0;
            loop {
                let now = String::from_utf8_lossy(&blank).into_owned();
                let Some(start) = now[from..].find(open).map(|s| s + from) else {
                    break;
                };
                let body = start + open.len();
                let Some(end) = now[body..].find(close).map(|e| e + body + close.len()) else {
                    break;
                };
                // `](` keeps its `]` and `(`, so a link is still a link.
                let (a, b) = if open == "](" {
                    (body, end - 1)
                } else {
                    (start, end)
                };
                clear(&mut blank, a, b);
                from = end;
            }
        }
        // A quotation ("più task", on one line) is another author's word,
        // not the book's use of it.
        let now = String::from_utf8_lossy(&blank).into_owned();
        for line_start in std::iter::once(0).chain(now.match_indices('\n').map(|(i, _)| i + 1)) {
            let line = &now[line_start..];
            let line = &line[..line.find('\n').unwrap_or(line.len())];
            let quotes: Vec<usize> = line.match_indices('"').map(|(i, _)| i).collect();
            for pair in quotes.chunks_exact(2) {
                clear(&mut blank, line_start + pair[0], line_start + pair[1] + 1);
            }
        }
        // HTML tags (their attributes are not prose).
        let now = String::from_utf8_lossy(&blank).into_owned();
        let mut from = 0;
        while let Some(start) = now[from..].find('<').map(|s| s + from) {
            let Some(end) = now[start..].find('>').map(|e| e + start + 1) else {
                break;
            };
            if now[start + 1..end].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/') {
                clear(&mut blank, start, end);
            }
            from = end;
        }
        Prose { text, blank }
    }

    /// The offsets where `term` is used as a word (or its plural).
    fn uses<'t>(&'t self, term: &'t str) -> impl Iterator<Item = usize> + 't {
        let lower = String::from_utf8_lossy(&self.blank).to_lowercase();
        // Lower-casing may change lengths outside ASCII; the book's terms
        // and the text around them keep their lengths in practice, and a
        // mismatch only moves a line number.
        let hits: Vec<usize> = lower
            .match_indices(term)
            .filter(|(at, _)| {
                let before = &lower[..*at];
                let after = &lower[at + term.len()..];
                let after = after.strip_prefix('s').unwrap_or(after);
                !before.ends_with(word)
                    && !before.ends_with("::")
                    && !after.starts_with(word)
                    && !after.starts_with("::")
            })
            .map(|(at, _)| at)
            .collect();
        hits.into_iter()
    }

    /// Whether the use at `at` is inside a link's text whose target is the
    /// glossary or `page`.
    fn linked(&self, at: usize, page: &str) -> bool {
        let before = &self.text[..at];
        let Some(open) = before.rfind('[') else {
            return false;
        };
        if before[open..].contains(']') {
            return false;
        }
        let Some(close) = self.text[at..].find("](").map(|c| c + at) else {
            return false;
        };
        if self.text[at..close].contains('[') {
            return false;
        }
        let target = &self.text[close + 2..];
        let target = &target[..target.find(')').unwrap_or(target.len())];
        let file = target.split('#').next().unwrap_or_default();
        file == GLOSSARY || file == page
    }
}

/// A character that continues a word, so that `poll` is not found in
/// `epoll`, `poll_fn` or `select-poll` (nor, with `::`, `task` in
/// `AnyEvent::Task`).
fn word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

#[cfg(test)]
mod tests;
