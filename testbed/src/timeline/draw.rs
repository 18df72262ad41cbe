//! Drawing: the layout of a picture (legend, one panel per run, the shared
//! time axis, the command that made it) and the marks in each panel (lane
//! numbers, the outage window, one bar per item).
//!
//! Sizes are in pixels of a picture 740 wide, the book's text column, so
//! that its 12-pixel text is read at 12 pixels there.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::svg::{escape, header, thousands};

use super::legend::{class_of, legend_entries, style};
use super::{Service, Timeline};

/// The picture's width in pixels: the book's text column.
const WIDTH: f64 = crate::svg::COLUMN;
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
pub(super) const COMMAND_COLUMNS: usize = 84;
/// Roughly the width of one character of 12 px sans-serif text.
const CHAR_WIDTH: f64 = 6.8;
/// A run with more bars than this, or lanes thinner than
/// [`TOOLTIP_LANE`], gets no tooltips: nobody can point at one bar there,
/// and the picture stays a few hundred KB.
const TOOLTIP_LIMIT: usize = 2_000;
const TOOLTIP_LANE: f64 = 4.0;

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

    let mut svg = header(WIDTH, height);
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
        let label = outage(&mut svg, run, top, lane_height, &x);
        bars(&mut svg, run, top, lane_height, &x);
        // Over the bars, so none hides it; inside the shade, so it clears
        // the panel's title above.
        svg.push_str(&label);
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

/// The server's outage window (`--outage`), shaded behind the bars: from its
/// start to its end, or to the end of the run if the run ended first. What
/// a stage does while its server is down, and how soon it recovers, is then
/// there to see. Returns the window's label, for the caller to draw over
/// the bars.
fn outage(
    svg: &mut String,
    run: &Timeline,
    top: f64,
    lane_height: f64,
    x: &dyn Fn(u64) -> f64,
) -> String {
    let Some([from, to]) = run.report.outage_ms else {
        return String::new();
    };
    let (x0, x1) = (
        x((from * 1e3) as u64),
        x(((to * 1e3) as u64).min(run.end_us())),
    );
    if x1 <= x0 {
        return String::new();
    }
    let height = lane_height * f64::from(run.lanes());
    let _ = writeln!(
        svg,
        r##"<rect x="{x0:.2}" y="{top:.1}" width="{:.2}" height="{height:.2}" fill="#000000" fill-opacity="0.12"><title>the server was down from {} to {} ms</title></rect>"##,
        x1 - x0,
        format_ms(from),
        format_ms(to),
    );
    // The picture's own text size, dark, with a white halo over the bars.
    format!(
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#222222" stroke="white" stroke-width="3" paint-order="stroke">server down</text>"##,
        (x0 + x1) / 2.0,
        top + 13.0
    ) + "\n"
}

/// One group per item: the light bar from start to finish, the dark
/// service times on top, and one tooltip for both. Colours and the light
/// shade are classes of the picture's style sheet, which keeps a figure of
/// thousands of bars small.
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
        let class = class_of(bar.kind.as_deref(), bar.wrong);
        // A wrong bar is solid from end to end: light, its near black
        // would read as grey, the colour of `refused`.
        let light = if bar.wrong { "" } else { light };
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
pub(super) fn wrap(text: &str, columns: usize) -> Vec<String> {
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
pub(super) fn tick_step(span_ms: f64) -> f64 {
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
