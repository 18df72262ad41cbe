//! Reading the numbers of a line of prose: where each starts and ends,
//! whether a source tag or an input tag speaks for it, and its unit.

use super::{ELSEWHERE, INPUT, TAG, UNITS};

/// A value worth catching as a typed copy: a number with a thousands
/// comma or a decimal point, or a percentage (a bare `400` or `20` is as
/// likely an item count or a setting as a copy). Returns its number.
pub(super) fn distinctive(value: &str) -> Option<String> {
    let number = leading_number(value);
    let marked = number.contains(',') || number.contains('.') || value.trim().ends_with('%');
    (marked && number.chars().any(|c| c.is_ascii_digit() && c != '0')).then_some(number)
}

/// The number a value starts with (`11.9 ms` → `11.9`, `94%` → `94%`).
pub(super) fn leading_number(value: &str) -> String {
    numbers(value)
        .into_iter()
        .next()
        .map_or_else(|| value.trim().to_owned(), |(n, ..)| n)
}

/// The last number in `text`, if any.
pub(super) fn last_number(text: &str) -> Option<String> {
    numbers(text).pop().map(|(n, ..)| n)
}

/// The numbers of a line (`1,836`, `0.94`, `94%`), each with whether a
/// source tag follows it and the unit of measurement that follows it, if
/// it is one of [`UNITS`]; numbers inside `{{...}}`, code spans and
/// comments other than tags are skipped.
pub(super) fn numbers(line: &str) -> Vec<(String, bool, Option<&'static str>)> {
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
        let tagged = after.contains(INPUT)
            || after.find(TAG).is_some_and(|at| {
                after[at + TAG.len()..].trim_start().starts_with(ELSEWHERE)
                    || !after[..at].chars().any(|c| c.is_ascii_digit())
            });
        let unit = if number.ends_with('%') {
            Some("%")
        } else {
            unit_after(&after)
        };
        found.push((number, tagged, unit));
        i = j;
    }
    found
}

/// The unit that follows a number, if it is one of [`UNITS`]: right after
/// it (`15 ms`, `0.5 calls`), or after one code span (404 `epoll_wait`
/// calls).
fn unit_after(after: &str) -> Option<&'static str> {
    let mut rest = after.trim_start();
    if let Some(span) = rest.strip_prefix('`') {
        rest = span.split_once('`').map_or("", |(_, r)| r).trim_start();
    }
    UNITS.into_iter().find(|unit| {
        rest.strip_prefix(unit)
            .is_some_and(|r| !r.starts_with(|c: char| c.is_alphanumeric()))
    })
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-' || c == '.' || c == '/'
}

/// The lines of a page a reader reads as prose: not inside code fences,
/// 1-based numbering kept by returning each line's 0-based index.
pub(super) fn prose_lines(text: &str) -> Vec<(usize, &str)> {
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
