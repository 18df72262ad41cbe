//! The timeline as an interactive page: `--timeline run.html`.
//!
//! One self-contained HTML file: its style (`page/page.css`), its script
//! (`page/page.js`, plain JavaScript, no library) and the run's data (the
//! [`Timeline`] as JSON) are all inlined, so the page opens from a file,
//! offline, and can be mailed or embedded in the book as it is. The script
//! draws the lanes in the browser; this file only assembles the document.
//!
//! The lanes are drawn on a `<canvas>`, so the page holds the same few
//! hundred elements for 20 items or 100,000 (the data is columns of small
//! numbers, `page/data.rs`). For tests and a reader's own tools the document
//! still says what it drew: `#lanes` carries `data-items`, `data-lanes` and
//! `data-wakes`, each run's readout its `output.in-flight` with
//! `data-in-flight`, and `<body data-drawn>` the milliseconds from navigation
//! to the first full drawing. The title reads `<stage>: <N> items`.
//!
//! When the executor recorded its tasks ([`crate::tasks`]), a section
//! `#tasks` under the lanes draws them on the same time axis
//! (`page/tasks.js`, its data `page/task_data.rs`): a row per task, a bar
//! per poll (a spin, many polls each woken by the one before, is one bar
//! that counts them), an arrow from each wake to the poll it caused,
//! self-wakes and long polls in colours of their own, and the tasks alive
//! and ready. It says what the trace holds in `data-polls`, `data-wakes`,
//! `data-long-polls`, `data-self-wakes` and `data-longest-poll-us`, what it
//! drew in `data-arrows` and `data-spins`, and its canvas the arrows and
//! bars in view (`data-arrows-drawn`, `data-bars-drawn`) and the last
//! frame's cost (`data-paint-ms`). A run without a trace has no section.
//!
//! Embedded in the book (an `<iframe class="timeline-page">`), the page
//! tells the book its height and takes the book's theme, both by
//! `postMessage` (a book opened from a file is another origin to its
//! frames); the book's side is `book/theme/ladder.js`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Timeline;
use data::Run;

mod data;
mod task_data;
use super::legend::{LIGHT_OPACITY, OK_COLOUR, WRONG_COLOUR, failure_colour};
use super::legend::{task_colours, task_legend};
use crate::outcome::ErrorKind;
use crate::svg::escape;

const STYLE: &str = include_str!("page/page.css");
/// The script, in parts read in this order, inside one function: the
/// model, the drawing, the counter tracks, the range selection, the tasks
/// (these only define functions), then the page, which runs.
const SCRIPT: [&str; 6] = [
    include_str!("page/model.js"),
    include_str!("page/draw.js"),
    include_str!("page/counters.js"),
    include_str!("page/select.js"),
    include_str!("page/tasks.js"),
    include_str!("page/page.js"),
];

/// What the script reads: the runs, and the colours the SVG uses too, so
/// the page and the picture agree.
#[derive(Serialize)]
struct Data<'a> {
    runs: Vec<Run<'a>>,
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
    colours.extend(task_colours());
    let data = Data {
        runs: runs.iter().map(Run::of).collect(),
        colours,
        light: LIGHT_OPACITY,
    };
    // Inside a <script>, only `</` can end the element early: JSON allows
    // `\/` for `/`, so the data cannot close its own tag.
    let json = serde_json::to_string(&data)
        .expect("a timeline is plain data and always serialises")
        .replace("</", "<\\/");
    let script = SCRIPT.concat();
    let title = title(runs);
    let summary = summary(runs);
    let legend = legend(runs);
    let tasks = task_section(runs);
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
<button type="button" id="zoom-in" title="zoom in (+)" aria-label="zoom in">+</button>
<button type="button" id="zoom-out" title="zoom out (-)" aria-label="zoom out">&minus;</button>
<button type="button" id="zoom-reset" title="the whole run (0)">all</button>
<label for="scrub">cursor</label>
<input type="range" id="scrub" min="0" max="100" step="1" value="50" aria-valuetext="">
<form id="find" role="search"><label for="find-item">item</label>
<input id="find-item" type="text" inputmode="numeric" size="7" autocomplete="off">
<button type="submit">go</button>
<button type="button" id="next-failure" title="the next failed or wrong item (n)">next failure</button></form>
</div>
<div class="figure" id="figure">
<canvas id="axis" aria-hidden="true"></canvas>
<div id="lanes" tabindex="0" role="listbox" aria-label="items by connection: arrow keys move between items and lanes, Enter shows details, +/- zoom, Shift+arrows pan, [ ] move the cursor">
<canvas id="plot" aria-hidden="true"></canvas>
<div id="spacer"></div>
<div id="focus-item" role="option" aria-selected="true"></div>
</div>
</div>
{tasks}<p class="help">Drag, Shift+&larr;/&rarr; or a swipe to pan; Ctrl+wheel (or the wheel after a click in the figure), a pinch or +/&minus; to zoom, 0 for the whole run. Click, [ and ], or the slider to move the cursor. Hover a bar for its item; click or tap it (or reach it with the arrow keys and press Enter) for details that stay. Shift+drag, or {{ and }} at the cursor, to select a range and see its totals.</p>
<section id="details" aria-label="the chosen item" hidden>
<button type="button" id="details-close" aria-label="close the details">&times;</button>
<div id="details-text"></div>
</section>
<section id="selection" aria-label="the selected range" hidden>
<button type="button" id="selection-close" aria-label="clear the range">&times;</button>
<div id="selection-text" aria-live="polite"></div>
</section>
<div class="readout">
<p id="live" aria-live="polite" aria-atomic="true"></p>
<div id="readouts"></div>
</div>
<div id="tip" role="tooltip"></div>
<pre id="errors"></pre>
</main>
<script id="data" type="application/json">{json}</script>
<script>
// Errors go into the page, where a reader (and a browser test) sees them.
window.addEventListener('error', function (e) {{
  var out = document.getElementById('errors');
  if (out) {{ out.textContent += 'error: ' + e.message + '\n'; }}
  document.body.setAttribute('data-errors', 'yes');
}});
</script>
<script>
'use strict';
(function () {{
{script}}}());
</script>
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

/// The section of the executor's tasks, under the lanes, when a run
/// recorded them (else nothing): its script (`page/tasks.js`) draws the
/// rows and fills in the summary and the figures in its attributes.
fn task_section(runs: &[Timeline]) -> String {
    if runs.iter().all(|t| t.tasks.is_none()) {
        return String::new();
    }
    let legend = task_legend();
    format!(
        r#"<section id="tasks" aria-labelledby="tasks-title">
<h2 id="tasks-title">Tasks: who held the thread, and who woke whom</h2>
<p class="summary" id="tasks-summary"></p>
<div class="legend">{legend}</div>
<div class="figure" id="task-figure">
<canvas id="task-axis" aria-hidden="true"></canvas>
<canvas id="task-plot" role="img" aria-label="polls of the tasks over time"></canvas>
</div>
</section>
"#
    )
}
