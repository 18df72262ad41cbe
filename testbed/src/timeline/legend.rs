//! The colours of a timeline and the legend that names them: blue for
//! success, a colour per kind of failure, and the two shades of a bar when
//! the server logged its service times.
//!
//! The colours are classes of one style sheet ([`style`]), so that a bar
//! says `class="ko"` instead of repeating its colour: a figure of thousands
//! of bars stays small.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::outcome::ErrorKind;

use super::Timeline;

/// How light the "waiting on the client" shade is.
pub(super) const LIGHT_OPACITY: f64 = 0.35;

/// Colour of a successful item.
pub(super) const OK_COLOUR: &str = "#4c78a8";

/// Colour of a wrong one: near black, unlike any outcome's colour, since a
/// wrong row may claim any outcome.
pub(super) const WRONG_COLOUR: &str = "#222222";

/// A poll that held the thread this long or longer is marked long: nothing
/// else ran meanwhile, no socket was read, no timer fired.
pub(super) const LONG_POLL_US: u64 = 10_000;

/// Colour of a task's poll on the page.
pub(super) const POLL_COLOUR: &str = "#2f8f89";

/// Colour of a poll caused by its own task's wake, and of that wake's mark:
/// a task that spins instead of letting the loop sleep.
pub(super) const SELF_WAKE_COLOUR: &str = "#8e5bb5";

/// Colour of a long poll ([`LONG_POLL_US`]): the thread blocked.
pub(super) const LONG_POLL_COLOUR: &str = "#d62728";

/// Colour of the arrows from a wake to the poll it caused.
pub(super) const ARROW_COLOUR: &str = "#f58518";

/// The colours the page's script draws the tasks with, by its names.
pub(super) fn task_colours() -> [(&'static str, &'static str); 4] {
    [
        ("poll", POLL_COLOUR),
        ("self", SELF_WAKE_COLOUR),
        ("long", LONG_POLL_COLOUR),
        ("arrow", ARROW_COLOUR),
    ]
}

/// The legend of the tasks' rows: what each colour and mark means.
pub(super) fn task_legend() -> String {
    let swatch =
        |colour: &str| format!(r#"<span class="swatch" style="background:{colour}"></span>"#);
    let ms = LONG_POLL_US / 1_000;
    [
        (
            "poll",
            POLL_COLOUR,
            "a poll (the task held the thread)".to_owned(),
        ),
        (
            "long",
            LONG_POLL_COLOUR,
            format!("a long poll, {ms} ms or more: the thread blocked, nothing else ran"),
        ),
        (
            "self",
            SELF_WAKE_COLOUR,
            "a self-wake, and the poll it caused: the task woke itself, so the loop never slept \
             (a spin, many such polls in a row, is one bar)"
                .to_owned(),
        ),
        (
            "arrow",
            ARROW_COLOUR,
            "from a wake to the poll it caused (woken row: spawns, sockets, timers)".to_owned(),
        ),
    ]
    .into_iter()
    .map(|(name, colour, words)| {
        format!(
            r#"<span data-task-mark="{name}">{}{words}</span>"#,
            swatch(colour)
        )
    })
    .collect()
}

/// The class of a wrong bar.
pub(super) const WRONG_CLASS: &str = "wrong";

/// Colour of a failure of `kind`: distinct from the blue of success and from
/// each other.
pub(super) fn failure_colour(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Nak => "#f58518",
        ErrorKind::Ko => "#e45756",
        ErrorKind::Timeout => "#b279a2",
        ErrorKind::PoolTimeout => "#9d755d",
        ErrorKind::Refused => "#7f7f7f",
        ErrorKind::Closed => "#54a24b",
        ErrorKind::Protocol => "#eeca3b",
    }
}

/// The style sheet of a picture: a class per outcome, and the light shade.
pub(super) fn style() -> String {
    let mut css = format!(".ok{{fill:{OK_COLOUR}}}");
    for kind in ErrorKind::ALL {
        let _ = write!(css, ".{}{{fill:{}}}", kind.as_str(), failure_colour(kind));
    }
    let _ = write!(css, ".{WRONG_CLASS}{{fill:{WRONG_COLOUR}}}");
    let _ = write!(css, ".l{{fill-opacity:{LIGHT_OPACITY}}}");
    format!("<style>{css}</style>\n")
}

/// The class of a bar: `wrong` for a wrong row, else `ok` or its
/// failure's kind.
pub(super) fn class_of(kind: Option<&str>, wrong: bool) -> &'static str {
    if wrong {
        return WRONG_CLASS;
    }
    kind.and_then(|k| k.parse::<ErrorKind>().ok())
        .map_or("ok", ErrorKind::as_str)
}

/// The legend: success, each failure kind that appears and wrong rows if
/// any (with one run, each with its count), then, if the bars have two
/// shades, what each shade means, shown on success's blue: the swatch
/// looks like most of the bars it explains, and the shade is the same on
/// every colour.
pub(super) fn legend_entries(runs: &[Timeline], shaded: bool) -> Vec<(&'static str, f64, String)> {
    const SHADE: &str = OK_COLOUR;
    let count = |n: u64| {
        if runs.len() == 1 {
            format!(" {n}")
        } else {
            String::new()
        }
    };
    let ok: u64 = runs.iter().map(|r| r.report.ok).sum();
    let wrong = runs
        .iter()
        .flat_map(|r| &r.bars)
        .filter(|b| b.wrong)
        .count() as u64;
    let mut entries = vec![(OK_COLOUR, 1.0, format!("ok{}", count(ok)))];
    let mut failures: BTreeMap<ErrorKind, u64> = BTreeMap::new();
    for bar in runs.iter().flat_map(|r| &r.bars).filter(|b| !b.wrong) {
        if let Some(kind) = bar.kind.as_deref().and_then(|k| k.parse().ok()) {
            *failures.entry(kind).or_insert(0) += 1;
        }
    }
    for (kind, n) in failures {
        entries.push((failure_colour(kind), 1.0, format!("{kind}{}", count(n))));
    }
    if wrong > 0 {
        entries.push((WRONG_COLOUR, 1.0, format!("wrong{}", count(wrong))));
    }
    if shaded {
        entries.push((SHADE, 1.0, "the server's service time".to_owned()));
        entries.push((SHADE, LIGHT_OPACITY, "waiting on the client".to_owned()));
    }
    entries
}
