//! The race as a picture: two bar charts, one above the other, one row per
//! contender.
//!
//! Above, what the ladder is about: items per second on the latency-bound
//! workload, with Little's-law ideal as a dashed line. Below, what the
//! references are about: the client's CPU time per item at zero latency,
//! split into user time (our code, SQLite) and system time (the kernel:
//! system calls and loopback TCP). Rungs are blue, references orange.
//!
//! Written by hand like `testbed`'s timeline: a few dozen `<rect>`s need no
//! plotting library, and the file stays small and diffable. The scales are
//! linear on purpose: 01-sync's bar *should* look as small as it is.
//!
//! The chart is drawn [`WIDTH`] px wide, the book's text column, so its
//! 12 px text is read at 12 px; every value sits after its bar, in dark
//! text on the white page, never on a bar's own colour.
//!
//! Not here: the numbers ([`crate::race`]).

use std::fmt::Write as _;

use testbed::svg::{escape, header, thousands};

use crate::contenders::{self, Kind};
use crate::race::{Race, Row};

/// The chart's width: the book's text column.
pub const WIDTH: f64 = testbed::svg::COLUMN;
const LABELS: f64 = 110.0;
const RIGHT: f64 = 20.0;
const PANEL: f64 = WIDTH - LABELS - RIGHT;
/// From a panel's top to its first bar: its title and workload.
const HEAD: f64 = 60.0;
/// Below a panel's last bar: the dashed line's label, then a gap.
const FOOT: f64 = 40.0;
const ROW: f64 = 24.0;
const BAR: f64 = 17.0;
const BOTTOM: f64 = 84.0;
/// Room after the longest bar for its value, as a share of the panel.
const HEADROOM: f64 = 1.12;

/// Colours of a rung's and a reference's bars (user time, then system time).
fn colours(kind: Kind) -> (&'static str, &'static str) {
    match kind {
        Kind::Rung => ("#4c78a8", "#9ecae9"),
        Kind::Reference => ("#f58518", "#ffbf79"),
    }
}

/// The row's kind; a race saved without it is looked up in the registry,
/// and a name this build does not know is taken for a rung (the references
/// are in every build).
fn kind_of(row: &Row) -> Kind {
    row.kind.unwrap_or_else(|| {
        contenders::find(&row.latency_bound.report.stage).map_or(Kind::Rung, |c| c.kind)
    })
}

/// Renders the race as an SVG document.
pub fn render(race: &Race) -> String {
    let n = race.rows.len().max(1) as f64;
    let left = LABELS;
    // The two panels' tops: each is a title, its bars and a foot.
    let upper = 30.0;
    let lower = upper + HEAD + n * ROW + FOOT;
    let height = lower + HEAD + n * ROW + BOTTOM;

    let mut svg = header(WIDTH, height);
    // `write!` to a String cannot fail; the results are ignored throughout.
    let _ = writeln!(
        svg,
        r#"<text x="12" y="22" font-size="15" font-weight="bold">Racing the stages</text>"#
    );

    // Left panel: throughput at latency, and the ideal.
    let ladder = &race.workloads.latency_bound;
    let ideal = race
        .rows
        .iter()
        .filter_map(|r| r.latency_bound.report.ideal_throughput)
        .fold(0.0, f64::max);
    let best = race
        .rows
        .iter()
        .map(|r| r.latency_bound.report.throughput)
        .fold(ideal, f64::max)
        .max(1.0)
        // Room to the right of the longest bar (or the ideal) for its label.
        * HEADROOM;
    title(
        &mut svg,
        upper,
        "items/s, higher is better",
        &ladder.describe(),
    );
    let top = upper + HEAD;
    // The ideal first, so the bars and their labels are drawn over it.
    if ideal > 0.0 {
        let x = left + ideal / best * PANEL;
        let bottom = top + n * ROW;
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{bottom:.1}" stroke="#333333" stroke-dasharray="4 3"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#333333">ideal {}</text>"##,
            top - 6.0,
            bottom + 14.0,
            thousands(ideal)
        );
    }

    for (i, row) in race.rows.iter().enumerate() {
        let y = top + i as f64 * ROW;
        let value = row.latency_bound.report.throughput;
        let w = value / best * PANEL;
        let (fill, _) = colours(kind_of(row));
        label(&mut svg, y, &row.latency_bound.report.stage);
        bar(
            &mut svg,
            left,
            y,
            w,
            fill,
            &format!("{} items/s", thousands(value)),
        );
        value_text(&mut svg, left + w, y, &thousands(value));
    }
    // Lower panel: client CPU per item at zero latency, user + system.
    let zero = &race.workloads.overhead;
    let most = race
        .rows
        .iter()
        .map(|r| r.overhead.client_cpu_us_per_item)
        .fold(0.0, f64::max)
        .max(1e-9)
        * HEADROOM;
    title(
        &mut svg,
        lower,
        "client CPU per item, µs, lower is better",
        &zero.describe(),
    );
    let top = lower + HEAD;
    // The values are written after the floor's line, so a value next to
    // the floor is read over the line, not crossed by it.
    let mut values = Vec::with_capacity(race.rows.len());
    for (i, row) in race.rows.iter().enumerate() {
        let y = top + i as f64 * ROW;
        let lap = &row.overhead;
        let per_item = |s: f64| s * 1e6 / (lap.report.items.max(1) as f64);
        let (user, sys) = (
            per_item(lap.client_cpu_user_s),
            per_item(lap.client_cpu_sys_s),
        );
        let (user_fill, sys_fill) = colours(kind_of(row));
        label(&mut svg, y, &lap.report.stage);
        let wu = user / most * PANEL;
        let ws = sys / most * PANEL;
        bar(
            &mut svg,
            left,
            y,
            wu,
            user_fill,
            &format!("user {user:.1} µs/item"),
        );
        bar(
            &mut svg,
            left + wu,
            y,
            ws,
            sys_fill,
            &format!("system {sys:.1} µs/item"),
        );
        values.push((
            left + wu + ws,
            y,
            format!("{:.1}", lap.client_cpu_us_per_item),
        ));
    }
    // The floor's CPU per item as a dashed line through every row: the
    // least a client can do for this workload (`crate::floor`).
    if let Some(floor) = race
        .rows
        .iter()
        .find(|r| r.overhead.report.stage == crate::race::FLOOR)
    {
        let x = left + floor.overhead.client_cpu_us_per_item / most * PANEL;
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#333333" stroke-dasharray="4 3"><title>floor: {:.1} µs/item</title></line>"##,
            top - 4.0,
            top + n * ROW,
            floor.overhead.client_cpu_us_per_item
        );
        let _ = writeln!(
            svg,
            r##"<text x="{x:.1}" y="{:.1}" fill="#333333" text-anchor="middle">floor</text>"##,
            top + n * ROW + 14.0
        );
    }
    for (x, y, text) in &values {
        value_text(&mut svg, *x, *y, text);
    }

    legend(&mut svg, top + n * ROW + 36.0);
    let _ = writeln!(
        svg,
        r##"<text x="12" y="{:.1}" font-family="monospace" fill="#555555">$ {}</text>"##,
        height - 14.0,
        escape(&race.command)
    );
    svg.push_str("</svg>\n");
    svg
}

fn title(svg: &mut String, y: f64, what: &str, workload: &str) {
    let _ = writeln!(
        svg,
        r##"<text x="12" y="{:.1}" font-weight="bold">{}</text><text x="12" y="{:.1}" fill="#555555">{}</text>"##,
        y + 16.0,
        escape(what),
        y + 32.0,
        escape(workload)
    );
}

fn label(svg: &mut String, y: f64, name: &str) {
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
        LABELS - 8.0,
        y + BAR - 4.0,
        escape(name)
    );
}

fn bar(svg: &mut String, x: f64, y: f64, w: f64, fill: &str, tooltip: &str) {
    let _ = writeln!(
        svg,
        r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{BAR}" fill="{fill}"><title>{}</title></rect>"#,
        w.max(0.5),
        escape(tooltip)
    );
}

/// The value after the end of a bar at `x`, in dark text on the page (the
/// panels' headroom keeps room for it): on a bar's light shade, white or
/// pale text would not read.
fn value_text(svg: &mut String, x: f64, y: f64, text: &str) {
    let ty = y + BAR - 4.0;
    // A white halo keeps the label readable over the ideal's line.
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{ty:.1}" stroke="white" stroke-width="3" paint-order="stroke">{text}</text>"#,
        x + 4.0
    );
}

fn legend(svg: &mut String, y: f64) {
    let entries = [
        ("#4c78a8", "rung of the ladder"),
        ("#f58518", "reference (threads, tokio)"),
        ("#9ecae9", "lighter: system time (kernel)"),
    ];
    let mut x = 12.0;
    for (fill, text) in entries {
        let _ = writeln!(
            svg,
            r#"<rect x="{x:.1}" y="{:.1}" width="12" height="12" fill="{fill}"/><text x="{:.1}" y="{y:.1}">{text}</text>"#,
            y - 10.0,
            x + 17.0
        );
        x += 20.0 + 7.0 * text.len() as f64;
    }
}

#[cfg(test)]
mod tests {
    use testbed::protocol::Phases;
    use testbed::report::{Report, RunFacts};

    use super::*;
    use crate::race::{Rounds, Workloads};
    use crate::run::Lap;

    /// A lap of `name` with `throughput`, or `cpu_us` of client CPU per
    /// item (a quarter of it user time).
    fn lap(name: &str, items: usize, throughput: f64, cpu_us: f64) -> Lap {
        let mut report = Report::build(&[], &[], RunFacts::new(name, Phases::Two));
        report.items = items as u64;
        report.throughput = throughput;
        report.ideal_throughput = Some(12_500.0);
        let cpu_s = cpu_us * items as f64 / 1e6;
        Lap {
            report,
            client_cpu_s: cpu_s,
            client_cpu_user_s: cpu_s / 4.0,
            client_cpu_sys_s: cpu_s * 3.0 / 4.0,
            client_cpu_us_per_item: cpu_us,
            syscalls_per_item: None,
        }
    }

    #[test]
    fn the_chart_fits_the_column_and_every_value_is_dark_on_white() {
        let workloads = Workloads::full();
        let row = |name: &str, kind, throughput, cpu_us| Row {
            kind: Some(kind),
            latency_bound: lap(name, workloads.latency_bound.items, throughput, 0.0),
            overhead: lap(name, workloads.overhead.items, 0.0, cpu_us),
            rounds: Rounds::default(),
            cpu_x_floor: None,
            latency_bound_service: None,
        };
        let race = Race {
            rows: vec![
                row("fork", Kind::Rung, 3_809.0, 168.1),
                row("tokio", Kind::Reference, 8_749.0, 42.4),
                row("floor", Kind::Reference, 7_762.0, 32.7),
            ],
            workloads,
            command: "race --rounds 5".into(),
            steal: None,
            syscall_counter: None,
            left_out: Vec::new(),
            interrupted: None,
        };
        let svg = render(&race);
        // Drawn at the column's width, so 12 px text is read at 12 px...
        assert!(svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="740""#));
        // ...and no text is set smaller, nor white (on a light bar).
        assert!(!svg.contains("font-size=\"10\"") && !svg.contains("font-size=\"11\""));
        assert!(!svg.contains(r#"fill="white">"#), "{svg}");
        // The longest bar's value, and every row's name in both panels.
        assert!(svg.contains(">168.1</text>"));
        // The floor's line is drawn before the values, which read over it.
        let line = svg.find("<title>floor:").expect("the floor's line");
        assert!(line < svg.find(">32.7</text>").expect("the floor's value"));
        assert_eq!(svg.matches(">fork</text>").count(), 2);
    }
}
