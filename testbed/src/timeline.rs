//! The timeline picture of a run: one lane per connection, one bar per item.
//!
//! A timeline is the fastest way to *see* a concurrency model. Stage 1 is a
//! single lane of back-to-back bars; stage 3's lanes stall behind one slow
//! reply while the others sit idle; stage 4's lanes stay full. The picture is
//! drawn from the results database (start and finish of every item, and its
//! lane), so it shows what happened, not what the stage claims.
//!
//! An outage window (`--outage`) is shaded behind the bars, so what a
//! stage does while its server is down, and how soon it recovers, is there
//! to see.
//!
//! # Two shades
//!
//! When the embedded server logged its replies (it does for `--timeline`,
//! see [`crate::server::ServedLine`]), each bar has two shades of its
//! colour: dark while the server was applying a service time to one of the
//! item's request lines, light for the rest, when the item was waiting on
//! the client (the request on its way, a reply waiting to be read, the
//! client recording the outcome). A loop that leaves replies unread shows
//! long light stretches; a loop that reads what is ready shows bars that are
//! nearly all dark. A server in its own process (02-fork's) keeps no such
//! log, and its bars have one shade.
//!
//! # Several runs on one axis
//!
//! [`render_stack`] draws several runs one above the other on a shared time
//! axis, so that two models can be compared lane by lane at the same scale.
//! A stage binary writes the data of a run instead of a picture when the
//! `--timeline` path ends in `.json`; the `stack-timelines` binary draws
//! such files together.
//!
//! # Drawing
//!
//! The SVG is written by hand: a few thousand `<rect>`s need no plotting
//! library, and the output stays small and diffable. It is drawn 740 pixels
//! wide, the width of the book's text column, so its 12-pixel text is read
//! at 12 pixels there. Failures get their own colour per kind, and every bar
//! has a tooltip (`<title>`) with the item, its outcome and its durations,
//! up to a few thousand bars (beyond, a bar is too thin to point at).
//! Lanes shrink to fit, lane labels thin out so they never overlap, and bars
//! are separated by a hairline so 40 back-to-back requests in one lane
//! remain 40.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::outcome::ErrorKind;
use crate::report::Report;
use crate::server::ServedLine;
use crate::store::Row;

/// The picture's width in pixels: the book's text column.
const WIDTH: f64 = 740.0;
const LEFT: f64 = 44.0;
const RIGHT: f64 = 12.0;
/// Plot width in pixels.
const PLOT_WIDTH: f64 = WIDTH - LEFT - RIGHT;
/// The plot of one run never grows taller than this, whatever its lanes.
const MAX_PLOT_HEIGHT: f64 = 420.0;
/// In a stack, each run gets at least this much height.
const MIN_PANEL_HEIGHT: f64 = 150.0;
/// A lane is never taller than this (a 1-lane run is a strip, not a wall).
const MAX_LANE_HEIGHT: f64 = 22.0;
/// Lane labels closer than this would overlap.
const MIN_LABEL_SPACING: f64 = 13.0;
/// Lines of text are this far apart.
const LINE: f64 = 17.0;
/// Characters of monospace text that surely fit in the picture's width
/// (7.2 to 8 px each at 12 px, depending on the viewer's font): a longer
/// command wraps instead of running off the picture.
const COMMAND_COLUMNS: usize = 84;
/// Roughly the width of one character of 12 px sans-serif text.
const CHAR_WIDTH: f64 = 6.8;
/// A run with more bars than this, or lanes thinner than
/// [`TOOLTIP_LANE`], gets no tooltips: nobody can point at one bar there,
/// and the picture stays a few hundred KB.
const TOOLTIP_LIMIT: usize = 2_000;
const TOOLTIP_LANE: f64 = 4.0;
/// How light the "waiting on the client" shade is.
const LIGHT_OPACITY: f64 = 0.35;

/// Colour of a successful item.
const OK_COLOUR: &str = "#4c78a8";

/// Colour of a failure of `kind`: distinct from the blue of success and from
/// each other.
fn failure_colour(kind: ErrorKind) -> &'static str {
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

/// Everything a timeline shows of one run, as plain data: what
/// `--timeline run.json` writes and `stack-timelines` reads.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Timeline {
    /// What the run is called in a stack (the stage's name by default).
    pub label: String,
    /// The run's verified report.
    pub report: Report,
    /// One bar per stored item.
    pub bars: Vec<Bar>,
    /// The server's service times, if it logged them (else empty).
    pub service: Vec<Service>,
}

/// One item's bar: from the stage starting on it to its outcome recorded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Bar {
    /// The item's id.
    pub id: u64,
    /// The lane (connection, worker or fiber) it ran on.
    pub lane: u32,
    /// Start, µs since the run's epoch.
    pub start_us: u64,
    /// Outcome recorded, µs since the run's epoch.
    pub end_us: u64,
    /// `None` for a success, else the failure's kind (`timeout`, ...).
    pub kind: Option<String>,
    /// The outcome as the tooltip says it.
    pub what: String,
}

/// One service time the server applied: from a request line complete to
/// its reply (or its fault).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Service {
    /// The item's id.
    pub id: u64,
    /// Start, µs since the run's epoch.
    pub start_us: u64,
    /// Service time over, µs since the run's epoch.
    pub end_us: u64,
}

impl Timeline {
    /// The timeline of a run: its report, its rows, and what the server
    /// logged (`served` may be empty), with `epoch` the instant the run's
    /// µs count from.
    pub fn new(report: &Report, rows: &[Row], served: &[ServedLine], epoch: Instant) -> Timeline {
        let micros = |at: Instant| {
            u64::try_from(at.saturating_duration_since(epoch).as_micros()).unwrap_or(u64::MAX)
        };
        let bars = rows
            .iter()
            .map(|row| Bar {
                id: row.id.0,
                lane: row.lane.0,
                start_us: row.started_us,
                end_us: row.finished_us,
                kind: row.outcome.as_ref().err().map(|f| f.kind.to_string()),
                what: match &row.outcome {
                    Ok(_) => "ok".to_owned(),
                    Err(failure) => failure.to_string(),
                },
            })
            .collect();
        let service = served
            .iter()
            .map(|line| Service {
                id: line.id.0,
                start_us: micros(line.received),
                end_us: micros(line.done),
            })
            .collect();
        Timeline {
            label: report.stage.clone(),
            report: report.clone(),
            bars,
            service,
        }
    }

    /// The data as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a timeline is plain data and always serialises")
    }

    fn lanes(&self) -> u32 {
        self.bars.iter().map(|b| b.lane + 1).max().unwrap_or(1)
    }

    fn end_us(&self) -> u64 {
        self.bars.iter().map(|b| b.end_us).max().unwrap_or(0)
    }
}

/// Renders one run as an SVG document, without a log of service times (one
/// shade per bar). `command`, if given, is printed under the picture, so a
/// figure always says how to make it again.
pub fn render(report: &Report, rows: &[Row], command: Option<&str>) -> String {
    let timeline = Timeline::new(report, rows, &[], Instant::now());
    render_stack(std::slice::from_ref(&timeline), command)
}

/// Renders one run or several, stacked on one time axis, as an SVG
/// document. `command`, if given and not empty, is printed under the
/// picture.
pub fn render_stack(runs: &[Timeline], command: Option<&str>) -> String {
    let end_us = runs.iter().map(Timeline::end_us).max().unwrap_or(0).max(1) as f64;
    let x = |us: u64| LEFT + us as f64 / end_us * PLOT_WIDTH;
    let shaded = runs.iter().any(|run| !run.service.is_empty());
    let command_lines = command
        .filter(|c| !c.trim().is_empty())
        .map(|c| wrap(c, COMMAND_COLUMNS))
        .unwrap_or_default();

    // Layout, top to bottom: legend, then each run (a title line and its
    // lanes), then the shared time axis, then the command.
    let legend = legend_entries(runs, shaded);
    let legend_rows = legend_layout(&legend);
    let mut y = 8.0 + LINE * legend_rows.len() as f64;
    let panel_height = if runs.len() > 1 {
        (MAX_PLOT_HEIGHT / runs.len() as f64).max(MIN_PANEL_HEIGHT)
    } else {
        MAX_PLOT_HEIGHT
    };
    let mut panels = Vec::new();
    for run in runs {
        let lanes = f64::from(run.lanes());
        let lane_height = (panel_height / lanes).min(MAX_LANE_HEIGHT);
        let title_y = y + LINE;
        let top = title_y + 7.0;
        panels.push((run, title_y, top, lane_height));
        y = top + lane_height * lanes + 6.0;
    }
    let axis_y = y - 6.0;
    let height = axis_y + 40.0 + LINE * command_lines.len() as f64 + 6.0;

    let mut svg = svg_start(WIDTH, height);
    svg.push_str(&style());
    // `write!` to a String cannot fail; the results are ignored throughout.
    for (row, entries) in legend_rows.iter().enumerate() {
        let ly = 8.0 + LINE * row as f64;
        for &(index, lx) in entries {
            let (colour, opacity, label) = &legend[index];
            let _ = writeln!(
                svg,
                r#"<rect x="{lx:.1}" y="{:.1}" width="12" height="12" fill="{colour}" fill-opacity="{opacity}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                ly + 2.0,
                lx + 16.0,
                ly + 12.0,
                escape(label)
            );
        }
    }

    // Time axis: vertical grid lines at round numbers of milliseconds,
    // through every run.
    let first_top = panels.first().map_or(axis_y, |p| p.2);
    let end_ms = end_us / 1e3;
    let step = tick_step(end_ms);
    let mut tick = 0.0;
    while tick <= end_ms + 1e-9 {
        let tx = LEFT + tick / end_ms * PLOT_WIDTH;
        let _ = writeln!(
            svg,
            r##"<line x1="{tx:.1}" y1="{first_top:.1}" x2="{tx:.1}" y2="{axis_y:.1}" stroke="#dddddd"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            axis_y + 15.0,
            format_ms(tick)
        );
        tick += step;
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">time since the run started (ms)</text>"#,
        LEFT + PLOT_WIDTH / 2.0,
        axis_y + 32.0
    );

    for &(run, title_y, top, lane_height) in &panels {
        let (what, how) = panel_title(run, runs.len() > 1);
        let _ = writeln!(
            svg,
            r#"<text x="{LEFT}" y="{title_y:.1}"><tspan font-weight="bold">{}</tspan>{}</text>"#,
            escape(&what),
            escape(&how)
        );
        lanes(&mut svg, run, top, lane_height);
        outage(&mut svg, run, top, lane_height, &x);
        bars(&mut svg, run, top, lane_height, &x);
    }

    for (i, line) in command_lines.iter().enumerate() {
        // Continuation lines start under the command, not under the `$`.
        let (prompt, lx) = if i == 0 {
            ("$ ", LEFT)
        } else {
            ("", LEFT + 14.4)
        };
        let _ = writeln!(
            svg,
            r##"<text x="{lx:.1}" y="{:.1}" font-family="monospace" fill="#555555">{prompt}{}</text>"##,
            axis_y + 40.0 + LINE * (i as f64 + 0.6),
            escape(line)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The line above a run's lanes: what ran (in bold), then how it went.
fn panel_title(run: &Timeline, stacked: bool) -> (String, String) {
    let r = &run.report;
    let name = if stacked { &run.label } else { &r.stage };
    let efficiency = r.efficiency.map_or(String::new(), |e| {
        format!(", {:.0}% of the ideal", e * 100.0)
    });
    let what = format!(
        "{name}: {}, {}",
        plural(r.items, "item"),
        plural(u64::from(run.lanes()), "lane")
    );
    let how = format!(
        ", {:.2} s, {} items/s{efficiency}",
        r.elapsed_s,
        thousands(r.throughput)
    );
    (what, how)
}

/// Lane numbers, thinned so they never overlap, and the axis title.
fn lanes(svg: &mut String, run: &Timeline, top: f64, lane_height: f64) {
    let lanes = run.lanes();
    let every = (MIN_LABEL_SPACING / lane_height).ceil().max(1.0) as usize;
    for lane in (0..lanes).step_by(every) {
        let ly = top + (f64::from(lane) + 0.5) * lane_height + 4.0;
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{ly:.1}" text-anchor="end">{lane}</text>"#,
            LEFT - 6.0
        );
    }
    if lanes > 2 {
        let mid = top + f64::from(lanes) * lane_height / 2.0;
        let _ = writeln!(
            svg,
            r#"<text x="11" y="{mid:.1}" transform="rotate(-90 11 {mid:.1})" text-anchor="middle">lane</text>"#
        );
    }
}

/// One group per item: the light bar from start to finish, the dark
/// service times on top, and one tooltip for both. Colours and the light
/// shade are classes of the picture's style sheet, which keeps a figure of
/// thousands of bars small.
/// The server's outage window (`--outage`), shaded behind the bars: from its
/// start to its end, or to the end of the run if the run ended first. What
/// a stage does while its server is down, and how soon it recovers, is then
/// there to see.
fn outage(svg: &mut String, run: &Timeline, top: f64, lane_height: f64, x: &dyn Fn(u64) -> f64) {
    let Some([from, to]) = run.report.outage_ms else {
        return;
    };
    let (x0, x1) = (
        x((from * 1e3) as u64),
        x(((to * 1e3) as u64).min(run.end_us())),
    );
    if x1 <= x0 {
        return;
    }
    let height = lane_height * f64::from(run.lanes());
    let _ = writeln!(
        svg,
        r##"<rect x="{x0:.2}" y="{top:.1}" width="{:.2}" height="{height:.2}" fill="#000000" fill-opacity="0.12"><title>the server was down from {} to {} ms</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10" fill="#555555">server down</text>"##,
        x1 - x0,
        format_ms(from),
        format_ms(to),
        (x0 + x1) / 2.0,
        top - 1.0
    );
}

fn bars(svg: &mut String, run: &Timeline, top: f64, lane_height: f64, x: &dyn Fn(u64) -> f64) {
    let mut service: BTreeMap<u64, Vec<&Service>> = BTreeMap::new();
    for span in &run.service {
        service.entry(span.id).or_default().push(span);
    }
    // A hairline of white between neighbours keeps back-to-back requests
    // apart; at a pixel or less they merge, which is honest.
    let gap = if lane_height >= 6.0 { 1.0 } else { 0.5 };
    let height = (lane_height - gap).max(0.5);
    let light = if run.service.is_empty() { "" } else { " l" };
    let tooltips = run.bars.len() <= TOOLTIP_LIMIT && lane_height >= TOOLTIP_LANE;
    let _ = writeln!(svg, r#"<g stroke="white" stroke-width="{:.2}">"#, gap / 2.0);
    for bar in &run.bars {
        let x0 = x(bar.start_us);
        let w = (x(bar.end_us) - x0).max(0.8);
        let y0 = top + f64::from(bar.lane) * lane_height + gap / 2.0;
        let class = class_of(bar.kind.as_deref());
        let spans: Vec<(u64, u64)> = service
            .get(&bar.id)
            .map(|spans| {
                spans
                    .iter()
                    .map(|s| (s.start_us.max(bar.start_us), s.end_us.min(bar.end_us)))
                    .filter(|(a, b)| b > a)
                    .collect()
            })
            .unwrap_or_default();
        let ms = |us: u64| us as f64 / 1e3;
        let mut title = format!(
            "item {}: {}, lane {}, {:.2} ms",
            bar.id,
            bar.what,
            bar.lane,
            ms(bar.end_us.saturating_sub(bar.start_us))
        );
        if !run.service.is_empty() {
            let served: u64 = spans.iter().map(|(a, b)| b - a).sum();
            let _ = write!(title, " ({:.2} ms of service)", ms(served));
        }
        if tooltips {
            let _ = write!(svg, "<g><title>{}</title>", escape(&title));
        }
        let _ = write!(
            svg,
            r#"<rect class="{class}{light}" x="{x0:.1}" y="{y0:.1}" width="{w:.1}" height="{height:.1}"/>"#
        );
        for (a, b) in spans {
            let sx = x(a);
            let sw = (x(b) - sx).max(0.6);
            let _ = write!(
                svg,
                r#"<rect class="{class}" x="{sx:.1}" y="{y0:.1}" width="{sw:.1}" height="{height:.1}"/>"#
            );
        }
        svg.push_str(if tooltips { "</g>\n" } else { "\n" });
    }
    svg.push_str("</g>\n");
}

/// The style sheet of a picture: a class per outcome, and the light shade.
fn style() -> String {
    let mut css = format!(".ok{{fill:{OK_COLOUR}}}");
    for kind in ErrorKind::ALL {
        let _ = write!(css, ".{}{{fill:{}}}", kind.as_str(), failure_colour(kind));
    }
    let _ = write!(css, ".l{{fill-opacity:{LIGHT_OPACITY}}}");
    format!("<style>{css}</style>\n")
}

/// The class of a bar: `ok`, or its failure's kind.
fn class_of(kind: Option<&str>) -> &'static str {
    kind.and_then(|k| k.parse::<ErrorKind>().ok())
        .map_or("ok", ErrorKind::as_str)
}

/// The legend: success and each failure kind that appears (with one run,
/// each with its count), then, if the bars have two shades, what each shade
/// means, in grey, since it applies to every colour.
fn legend_entries(runs: &[Timeline], shaded: bool) -> Vec<(&'static str, f64, String)> {
    const SHADE: &str = "#555555";
    let count = |n: u64| {
        if runs.len() == 1 {
            format!(" {n}")
        } else {
            String::new()
        }
    };
    let ok: u64 = runs.iter().map(|r| r.report.ok).sum();
    let mut entries = vec![(OK_COLOUR, 1.0, format!("ok{}", count(ok)))];
    let mut failures: BTreeMap<ErrorKind, u64> = BTreeMap::new();
    for bar in runs.iter().flat_map(|r| &r.bars) {
        if let Some(kind) = bar.kind.as_deref().and_then(|k| k.parse().ok()) {
            *failures.entry(kind).or_insert(0) += 1;
        }
    }
    for (kind, n) in failures {
        entries.push((failure_colour(kind), 1.0, format!("{kind}{}", count(n))));
    }
    if shaded {
        entries.push((SHADE, 1.0, "the server's service time".to_owned()));
        entries.push((SHADE, LIGHT_OPACITY, "waiting on the client".to_owned()));
    }
    entries
}

/// Places the legend's entries left to right, wrapping to a new row when
/// the picture's width is used up: for each row, (entry, x).
fn legend_layout(entries: &[(&'static str, f64, String)]) -> Vec<Vec<(usize, f64)>> {
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new()];
    let mut lx = LEFT;
    for (i, (_, _, label)) in entries.iter().enumerate() {
        let w = 16.0 + CHAR_WIDTH * label.chars().count() as f64 + 14.0;
        if lx + w > WIDTH - RIGHT && lx > LEFT {
            rows.push(Vec::new());
            lx = LEFT;
        }
        if let Some(row) = rows.last_mut() {
            row.push((i, lx));
        }
        lx += w;
    }
    rows
}

/// `12345.6` as `12,346`: rounded to a whole, digits grouped by three, as
/// the book writes numbers (the timelines' captions, and the race's table
/// and chart).
pub fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 lane`, `2 lanes`.
fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `text` cut at spaces into lines of at most `columns` characters (a word
/// longer than that gets a line of its own).
fn wrap(text: &str, columns: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.len() + 1 + word.len() <= columns => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_owned()),
        }
    }
    lines
}

/// A round tick spacing (1, 2 or 5 times a power of ten) giving 5 to 10
/// ticks over `span_ms`.
fn tick_step(span_ms: f64) -> f64 {
    let raw = span_ms / 8.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&step| step >= raw)
        .unwrap_or(10.0 * magnitude)
}

fn format_ms(ms: f64) -> String {
    if ms.fract().abs() < 1e-9 {
        format!("{ms:.0}")
    } else {
        format!("{ms:.1}")
    }
}

/// The start of an SVG picture `width` × `height` pixels on a white
/// background, in the house font: the common opening of the workspace's
/// pictures (this timeline, the bench's race chart). Close it with `</svg>`.
pub fn svg_start(width: f64, height: f64) -> String {
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height:.0}" viewBox="0 0 {width} {height:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    svg
}

/// `text` made safe inside SVG (XML) text and attributes: escape what XML
/// gives a meaning to.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Failure;
    use crate::report::RunFacts;
    use crate::store::Lane;
    use crate::workload::items;
    use std::time::Duration;

    fn run(lanes: u32, n: u64) -> (Report, Vec<Row>) {
        let list = items(n as usize, 1);
        let rows: Vec<Row> = list
            .iter()
            .map(|item| {
                let i = item.id.0;
                let lane = (i % u64::from(lanes)) as u32;
                let slot = i / u64::from(lanes);
                Row {
                    id: item.id,
                    outcome: if i % 7 == 3 {
                        Err(Failure::new(ErrorKind::Ko, "KO <500>"))
                    } else {
                        Ok(item.expected_result())
                    },
                    started_us: slot * 10_000,
                    finished_us: slot * 10_000 + 9_000,
                    lane: Lane(lane),
                    db_conn: 1,
                }
            })
            .collect();
        let facts = RunFacts {
            concurrency: lanes as usize,
            elapsed: Duration::from_secs(1),
            mean_service: Duration::from_millis(5),
            db_connections: 1,
            ..RunFacts::new("test", crate::protocol::Phases::Two)
        };
        (Report::build(&list, &rows, facts), rows)
    }

    #[test]
    fn draws_one_bar_per_item_with_failures_apart() {
        let (report, rows) = run(20, 200);
        let svg = render(&report, &rows, Some("01-sync --items 200"));
        assert_eq!(svg.matches("<title>item").count(), 200);
        assert!(svg.contains(r#"class="ko""#));
        assert!(
            svg.contains("ko: KO &lt;500&gt;"),
            "tooltips carry the kind, escaped"
        );
        assert!(svg.contains("$ 01-sync --items 200"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    }

    #[test]
    fn titles_have_correct_plurals() {
        let (report, rows) = run(1, 1);
        let svg = render(&report, &rows, None);
        assert!(svg.contains("1 item, 1 lane<"), "{svg}");
        let (report, rows) = run(2, 4);
        assert!(render(&report, &rows, None).contains("4 items, 2 lanes<"));
    }

    #[test]
    fn an_empty_command_prints_nothing() {
        let (report, rows) = run(2, 4);
        assert!(!render(&report, &rows, Some("")).contains("monospace"));
    }

    #[test]
    fn stays_within_bounds_at_100_lanes() {
        let (report, rows) = run(100, 4_000);
        let svg = render(&report, &rows, None);
        assert!(!svg.contains("<title>"), "too many bars to point at");
        // Labels thin out: 100 lanes of 4.2 px get a label every 4 lanes.
        let labels = svg.matches(r#"text-anchor="end""#).count();
        assert!((20..=30).contains(&labels), "{labels} lane labels");
        assert!(svg.len() < 600_000, "{} bytes", svg.len());
    }

    #[test]
    fn service_times_make_a_second_shade() {
        let (report, rows) = run(2, 4);
        let mut timeline = Timeline::new(&report, &rows, &[], Instant::now());
        // Item 0 ran 0..9 ms; the server served it 1..4 and 5..8 ms.
        timeline.service = vec![
            Service {
                id: 0,
                start_us: 1_000,
                end_us: 4_000,
            },
            Service {
                id: 0,
                start_us: 5_000,
                end_us: 8_000,
            },
        ];
        let svg = render_stack(std::slice::from_ref(&timeline), None);
        assert!(svg.contains("lane 0, 9.00 ms (6.00 ms of service)"));
        assert!(svg.contains("waiting on the client</text>"), "the legend");
        assert_eq!(svg.matches(r#"class="ok l""#).count(), 3, "light first");
        assert_eq!(svg.matches(r#"class="ko l""#).count(), 1);
        assert_eq!(svg.matches(r#"class="ok" x"#).count(), 2, "two services");
    }

    #[test]
    fn a_stack_shares_one_axis() {
        let (short, short_rows) = run(2, 4);
        let (long, long_rows) = run(4, 40);
        let runs = [
            Timeline::new(&short, &short_rows, &[], Instant::now()),
            Timeline::new(&long, &long_rows, &[], Instant::now()),
        ];
        let svg = render_stack(&runs, Some("a; b"));
        // The long run ends at 99 ms: one axis to 99 ms, ticks every 20.
        assert_eq!(svg.matches(">80</text>").count(), 1);
        assert_eq!(svg.matches(">100</text>").count(), 0);
        assert_eq!(svg.matches("time since the run started").count(), 1);
        assert!(svg.contains("4 items, 2 lanes") && svg.contains("40 items, 4 lanes"));
        let json = runs[1].to_json();
        let back: Timeline = serde_json::from_str(&json).expect("the data reads back");
        assert_eq!(back.bars.len(), 40);
    }

    #[test]
    fn a_long_command_wraps_inside_the_picture() {
        let (report, rows) = run(4, 8);
        let long = format!("05-pool {}", "--read-timeout 50ms ".repeat(12));
        let svg = render(&report, &rows, Some(long.trim()));
        let command_lines = svg.matches("font-family=\"monospace\"").count();
        let needed = long.trim().len().div_ceil(COMMAND_COLUMNS);
        assert!(needed >= 2, "the test's command is long enough to wrap");
        assert!(command_lines >= needed, "{} characters", long.len());
        for line in wrap(&long, COMMAND_COLUMNS) {
            assert!(line.len() <= COMMAND_COLUMNS, "{line:?}");
        }
        assert_eq!(wrap(&long, COMMAND_COLUMNS).join(" "), long.trim());
    }

    #[test]
    fn an_outage_is_shaded_behind_the_bars() {
        let (mut report, rows) = run(4, 40);
        report.outage_ms = Some([20.0, 50.0]);
        let svg = render(&report, &rows, None);
        let shade = svg.find("server down").expect("the outage is labelled");
        assert!(
            shade < svg.find("<title>item").expect("bars"),
            "behind them"
        );
        assert!(
            svg.contains("the server was down from 20 to 50 ms"),
            "{svg}"
        );
    }

    #[test]
    fn numbers_are_grouped_by_three() {
        assert_eq!(thousands(0.4), "0");
        assert_eq!(thousands(7.0), "7");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(thousands(1_327.0), "1,327");
        assert_eq!(thousands(1_234_567.8), "1,234,568");
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(80.0), 10.0);
        assert_eq!(tick_step(1_000.0), 200.0);
        assert_eq!(tick_step(3.0), 0.5);
    }
}
