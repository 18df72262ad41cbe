//! The timeline as an interactive page: `--timeline run.html`.
//!
//! One self-contained HTML file: its style (`page/page.css`), its script
//! (`page/page.js`, plain JavaScript, no library) and the run's data (the
//! [`Timeline`] as JSON) are all inlined, so the page opens from a file,
//! offline, and can be mailed or embedded in the book as it is. The script
//! draws the lanes in the browser; this file only assembles the document.
//!
//! For tests and a reader's own tools, the drawn document is regular: each
//! item bar is an element with `data-item` (its id) and `data-conn` (its
//! lane), each lane background has `data-lane`, each wake-up of the loop has
//! `data-wake`, and the cursor's in-flight count is `#in-flight`. The title
//! reads `<stage>: <N> items`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Timeline;
use super::legend::{LIGHT_OPACITY, OK_COLOUR, WRONG_COLOUR, failure_colour};
use crate::outcome::ErrorKind;
use crate::svg::escape;

const STYLE: &str = include_str!("page/page.css");
const SCRIPT: &str = include_str!("page/page.js");

/// What the script reads: the runs, and the colours the SVG uses too, so
/// the page and the picture agree.
#[derive(Serialize)]
struct Data<'a> {
    runs: &'a [Timeline],
    colours: BTreeMap<&'static str, &'static str>,
    light: f64,
}

/// The page of one run, or of several on one time axis (`stack-timelines`
/// with an `.html` output).
///
/// ```
/// use testbed::timeline::{Timeline, render_page};
/// # use testbed::report::{Report, RunFacts};
/// # use testbed::protocol::Phases;
/// # let report = Report::build(&[], &[], RunFacts::new("select", Phases::Two));
/// let timeline = Timeline::new(&report, &[], &[], std::time::Instant::now());
/// let page = render_page(&[timeline]);
/// assert!(page.contains("<title>select: 0 items</title>"));
/// ```
pub fn render_page(runs: &[Timeline]) -> String {
    let mut colours = BTreeMap::from([("ok", OK_COLOUR), ("wrong", WRONG_COLOUR)]);
    for kind in ErrorKind::ALL {
        colours.insert(kind.as_str(), failure_colour(kind));
    }
    let data = Data {
        runs,
        colours,
        light: LIGHT_OPACITY,
    };
    // Inside a <script>, only `</` can end the element early: JSON allows
    // `\/` for `/`, so the data cannot close its own tag.
    let json = serde_json::to_string(&data)
        .expect("a timeline is plain data and always serialises")
        .replace("</", "<\\/");
    let title = title(runs);
    let summary = summary(runs);
    let legend = legend(runs);
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{STYLE}</style>
</head>
<body>
<main>
<h1>{title}</h1>
<p class="summary">{summary}</p>
<div class="legend">{legend}</div>
<div class="controls">
<button type="button" id="zoom-in" title="zoom in (+)">+</button>
<button type="button" id="zoom-out" title="zoom out (-)">&minus;</button>
<button type="button" id="zoom-reset" title="the whole run (0)">all</button>
<label for="scrub">cursor</label>
<input type="range" id="scrub" min="0" max="1" step="1" value="0">
</div>
<div id="lanes" tabindex="0" aria-label="lanes: wheel or +/- to zoom, drag or arrows to pan, click or [ ] to move the cursor"></div>
<p class="help">Drag or &larr;/&rarr; to pan, wheel (Ctrl+wheel when the lanes scroll) or +/&minus; to zoom, 0 for the whole run; click, [ and ] or the slider to move the cursor; hover or tap a bar for its item.</p>
<div class="readout">
<div class="numbers"><span>at <b id="at"></b></span><span>in flight <b><output id="in-flight"></output></b></span><span>done <b id="done"></b></span><span>throughput so far <b id="rate"></b></span><span>Little's ideal <b id="ideal"></b></span></div>
<div class="conns" id="conns"></div>
</div>
<div id="tip" role="tooltip"></div>
<pre id="errors"></pre>
</main>
<script id="data" type="application/json">{json}</script>
<script>
{SCRIPT}</script>
</body>
</html>
"#
    )
}

/// `<stage>: <N> items`, or for a stack, each run's.
fn title(runs: &[Timeline]) -> String {
    let one = |t: &Timeline| format!("{}: {} items", t.label, t.report.items);
    escape(&runs.iter().map(one).collect::<Vec<_>>().join(" / "))
}

/// One line per run: its figures, and what its loop lane holds.
fn summary(runs: &[Timeline]) -> String {
    runs.iter()
        .map(|t| {
            let r = &t.report;
            let turns = match &t.turns {
                None => "this stage has no event loop, so no wake-ups are recorded".to_owned(),
                Some(turns) if turns.dropped > 0 => format!(
                    "{} loop wake-ups drawn ({} more not kept)",
                    turns.turns.len(),
                    turns.dropped
                ),
                Some(turns) => format!("{} loop wake-ups", turns.turns.len()),
            };
            escape(&format!(
                "{}: {} items in {:.1} ms, {} ok, {} failed, {} lost, {} wrong; {:.1} items/s; {turns}",
                t.label,
                r.items,
                r.elapsed_s * 1e3,
                r.ok,
                r.failed,
                r.lost,
                r.wrong,
                r.throughput
            ))
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

/// The outcomes present, each with its colour and count, then the shades
/// and the loop's ticks.
fn legend(runs: &[Timeline]) -> String {
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for bar in runs.iter().flat_map(|t| &t.bars) {
        // A row the report found wrong is counted (and drawn) as wrong,
        // whatever outcome it claims: a wrong reply is no success.
        let kind = if bar.wrong {
            "wrong"
        } else {
            bar.kind.as_deref().unwrap_or("ok")
        };
        *counts.entry(kind).or_insert(0) += 1;
    }
    let swatch = |colour: &str, opacity: f64| {
        format!(r#"<span class="swatch" style="background:{colour};opacity:{opacity}"></span>"#)
    };
    let mut out = String::new();
    for (kind, n) in &counts {
        let colour = match *kind {
            "wrong" => WRONG_COLOUR,
            _ => kind.parse::<ErrorKind>().map_or(OK_COLOUR, failure_colour),
        };
        out.push_str(&format!(
            r#"<span data-outcome="{}">{}{} {n}</span>"#,
            escape(kind),
            swatch(colour, 1.0),
            escape(kind)
        ));
    }
    if runs.iter().any(|t| !t.service.is_empty()) {
        out.push_str(&format!(
            "<span>{}at the server</span><span>{}waiting on the client</span>",
            // The shades of the bars' own colour, as the bars draw them.
            swatch(OK_COLOUR, 1.0),
            swatch(OK_COLOUR, LIGHT_OPACITY)
        ));
    }
    out.push_str("<span>| a loop wake-up (taller: more connections ready)</span>");
    out
}
