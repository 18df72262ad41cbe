//! The timeline picture of a run: one lane per connection, one bar per item.
//!
//! A timeline is the fastest way to *see* a concurrency model. Stage 1 is a
//! single lane of back-to-back bars; stage 3's lanes stall behind one slow
//! reply while the others sit idle; stage 4's lanes stay full. The picture is
//! drawn from the results database (start and finish of every item, and its
//! lane), so it shows what happened, not what the stage claims.
//!
//! The SVG is written by hand: a few hundred lines of `<rect>`s need no
//! plotting library, and the output stays small and diffable. Failures get
//! their own colour per kind, and every bar has a tooltip (`<title>`) with
//! the item, its outcome and its duration.
//!
//! Readability at scale: lanes shrink to fit (down to a few pixels at 100
//! lanes), lane labels thin out so they never overlap, and bars are
//! separated by a hairline so 40 back-to-back requests in one lane remain 40.
//!
//! An outage window (`--outage`) is shaded behind the bars, so what a
//! stage does while its server is down, and how soon it recovers, is there
//! to see.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::outcome::ErrorKind;
use crate::report::Report;
use crate::store::Row;

/// Plot width in pixels (the picture adds margins).
const PLOT_WIDTH: f64 = 960.0;
/// The plot never grows taller than this, whatever the lane count.
const MAX_PLOT_HEIGHT: f64 = 560.0;
/// A lane is never taller than this (a 1-lane run is a strip, not a wall).
const MAX_LANE_HEIGHT: f64 = 22.0;
/// Lane labels closer than this would overlap.
const MIN_LABEL_SPACING: f64 = 12.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 104.0;
/// Caption lines are this far apart.
const LINE: f64 = 18.0;
/// Characters of monospace text that surely fit under the plot (7.2 to
/// 8 px each at 12 px, depending on the font the viewer has): a longer
/// command wraps instead of running off the picture.
const COMMAND_COLUMNS: usize = 110;

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

/// Renders the run as an SVG document. `command`, if given, is printed
/// under the picture, so a figure always says how to make it again.
pub fn render(report: &Report, rows: &[Row], command: Option<&str>) -> String {
    let lanes = rows.iter().map(|r| r.lane.0 + 1).max().unwrap_or(1) as f64;
    let end_us = rows.iter().map(|r| r.finished_us).max().unwrap_or(0).max(1) as f64;
    let lane_height = (MAX_PLOT_HEIGHT / lanes).min(MAX_LANE_HEIGHT);
    let plot_height = lane_height * lanes;
    let width = LEFT + PLOT_WIDTH + RIGHT;
    let command_lines = command
        .map(|c| wrap(c, COMMAND_COLUMNS))
        .unwrap_or_default();
    let height = TOP + plot_height + BOTTOM + LINE * command_lines.len() as f64;
    let x = |us: u64| LEFT + us as f64 / end_us * PLOT_WIDTH;

    let mut svg = svg_start(width, height);
    // `write!` to a String cannot fail; the results are ignored throughout.
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{} — {} items, {} lane{}</text>"#,
        escape(&report.stage),
        report.items,
        lanes,
        if lanes == 1.0 { "" } else { "s" }
    );
    legend(&mut svg, report, rows);

    // Time axis: vertical grid lines at round numbers of milliseconds.
    let end_ms = end_us / 1e3;
    let step = tick_step(end_ms);
    let mut tick = 0.0;
    while tick <= end_ms + 1e-9 {
        let tx = LEFT + tick / end_ms * PLOT_WIDTH;
        let _ = writeln!(
            svg,
            r##"<line x1="{tx:.1}" y1="{TOP}" x2="{tx:.1}" y2="{:.1}" stroke="#dddddd"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            TOP + plot_height,
            TOP + plot_height + 16.0,
            format_ms(tick)
        );
        tick += step;
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">time since the run started (ms)</text>"#,
        LEFT + PLOT_WIDTH / 2.0,
        TOP + plot_height + 34.0
    );

    // Lane labels, thinned so they never overlap.
    let every = (MIN_LABEL_SPACING / lane_height).ceil().max(1.0) as u32;
    let _ = writeln!(
        svg,
        r#"<text x="12" y="{:.1}" transform="rotate(-90 12 {:.1})" text-anchor="middle">lane</text>"#,
        TOP + plot_height / 2.0,
        TOP + plot_height / 2.0
    );
    for lane in (0..lanes as u32).step_by(every as usize) {
        let ly = TOP + (f64::from(lane) + 0.5) * lane_height + 4.0;
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{ly:.1}" text-anchor="end">{lane}</text>"#,
            LEFT - 6.0
        );
    }

    // The outage, behind the bars: from its start to its end, or to the
    // end of the picture if the run ended first.
    if let Some([from, to]) = report.outage_ms {
        let (x0, x1) = (
            x((from * 1e3) as u64),
            x(((to * 1e3) as u64).min(end_us as u64)),
        );
        if x1 > x0 {
            let _ = writeln!(
                svg,
                r##"<rect x="{x0:.2}" y="{TOP}" width="{:.2}" height="{plot_height:.2}" fill="#000000" fill-opacity="0.12"><title>the server was down from {} to {} ms</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10" fill="#555555">server down</text>"##,
                x1 - x0,
                format_ms(from),
                format_ms(to),
                (x0 + x1) / 2.0,
                // Between the legend's line and the plot.
                TOP - 1.0
            );
        }
    }

    // The bars. A hairline of white between neighbours keeps back-to-back
    // requests apart; at a pixel or less they merge, which is honest.
    let gap = if lane_height >= 6.0 { 1.0 } else { 0.5 };
    for row in rows {
        let x0 = x(row.started_us);
        let w = (x(row.finished_us) - x0).max(0.8);
        let y0 = TOP + f64::from(row.lane.0) * lane_height + gap / 2.0;
        let (colour, what) = match &row.outcome {
            Ok(_) => (OK_COLOUR, "ok".to_owned()),
            Err(failure) => (failure_colour(failure.kind), failure.to_string()),
        };
        let ms = row.finished_us.saturating_sub(row.started_us) as f64 / 1e3;
        let _ = writeln!(
            svg,
            r#"<rect x="{x0:.2}" y="{y0:.2}" width="{w:.2}" height="{:.2}" fill="{colour}" stroke="white" stroke-width="{:.2}"><title>item {}: {} ({ms:.2} ms, lane {})</title></rect>"#,
            (lane_height - gap).max(0.5),
            gap / 2.0,
            row.id,
            escape(&what),
            row.lane.0
        );
    }

    caption(&mut svg, report, TOP + plot_height + 56.0, &command_lines);
    svg.push_str("</svg>\n");
    svg
}

/// Colour swatches with counts, top right.
fn legend(svg: &mut String, report: &Report, rows: &[Row]) {
    let mut failures: BTreeMap<ErrorKind, usize> = BTreeMap::new();
    for row in rows {
        if let Err(failure) = &row.outcome {
            *failures.entry(failure.kind).or_insert(0) += 1;
        }
    }
    let mut entries = vec![(OK_COLOUR, format!("ok {}", report.ok))];
    entries.extend(
        failures
            .into_iter()
            .map(|(kind, n)| (failure_colour(kind), format!("{kind} {n}"))),
    );
    let mut lx = LEFT + PLOT_WIDTH;
    for (colour, label) in entries.iter().rev() {
        // Roughly 7 px per character at 12 px sans-serif.
        lx -= 22.0 + 7.0 * label.len() as f64;
        let _ = writeln!(
            svg,
            r#"<rect x="{lx:.1}" y="32" width="12" height="12" fill="{colour}"/><text x="{:.1}" y="42">{}</text>"#,
            lx + 16.0,
            escape(label)
        );
    }
}

/// The run's figures under the plot, and the command that made it
/// (already wrapped into lines).
fn caption(svg: &mut String, report: &Report, y: f64, command: &[String]) {
    let efficiency = report.efficiency.map_or(String::new(), |e| {
        format!(
            " ({:.0}% of the ideal {:.0})",
            e * 100.0,
            report.ideal_throughput.unwrap_or(0.0)
        )
    });
    let figures = format!(
        "{} in flight · {} phase(s) · mean service {:.2} ms · {:.2} s · {:.0} items/s{efficiency}",
        report.conns, report.phases, report.mean_service_ms, report.elapsed_s, report.throughput,
    );
    let verdict = format!(
        "ok {} · failed {} · lost {} · wrong {} · p99 {:.1} ms",
        report.ok, report.failed, report.lost, report.wrong, report.latency_ms.p99
    );
    for (i, line) in [figures, verdict].iter().enumerate() {
        let _ = writeln!(
            svg,
            r#"<text x="{LEFT}" y="{:.1}">{}</text>"#,
            y + LINE * i as f64,
            escape(line)
        );
    }
    for (i, line) in command.iter().enumerate() {
        // Continuation lines start under the command, not under the `$`.
        let (prompt, lx) = if i == 0 {
            ("$ ", LEFT)
        } else {
            ("", LEFT + 14.4)
        };
        let _ = writeln!(
            svg,
            r##"<text x="{lx:.1}" y="{:.1}" font-family="monospace" fill="#555555">{prompt}{}</text>"##,
            y + LINE * (i + 2) as f64,
            escape(line)
        );
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
        assert!(svg.contains(failure_colour(ErrorKind::Ko)));
        assert!(
            svg.contains("ko: KO &lt;500&gt;"),
            "tooltips carry the kind, escaped"
        );
        assert!(svg.contains("$ 01-sync --items 200"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    }

    #[test]
    fn stays_within_bounds_at_100_lanes() {
        let (report, rows) = run(100, 4_000);
        let svg = render(&report, &rows, None);
        // Labels thin out: 100 lanes of 5.6 px get a label every 3 lanes.
        let labels = svg.matches(r#"text-anchor="end""#).count();
        assert!((30..=40).contains(&labels), "{labels} lane labels");
        assert!(svg.len() < 1_200_000, "{} bytes", svg.len());
    }

    #[test]
    fn a_long_command_wraps_inside_the_picture() {
        let (report, rows) = run(4, 8);
        let long = format!("05-pool {}", "--read-timeout 50ms ".repeat(12));
        let svg = render(&report, &rows, Some(long.trim()));
        let command_lines = svg.matches("font-family=\"monospace\"").count();
        let needed = long.trim().len().div_ceil(COMMAND_COLUMNS);
        assert!(needed >= 2, "the test's command is long enough to wrap");
        assert_eq!(command_lines, needed, "{} characters", long.len());
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
    fn ticks_are_round() {
        assert_eq!(tick_step(80.0), 10.0);
        assert_eq!(tick_step(1_000.0), 200.0);
        assert_eq!(tick_step(3.0), 0.5);
    }
}
