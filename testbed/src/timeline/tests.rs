//! The pictures, checked by what they contain.

use std::time::{Duration, Instant};

use super::draw::{COMMAND_COLUMNS, tick_step, wrap};
use super::{Service, Timeline, render, render_stack};
use crate::report::{Report, RunFacts};
use crate::sample::rows_on_lanes;
use crate::store::Row;
use crate::workload::items;

fn run(lanes: u32, n: u64) -> (Report, Vec<Row>) {
    let list = items(n as usize, 1);
    let rows = rows_on_lanes(&list, lanes);
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
    let shade = svg
        .find("the server was down")
        .expect("the outage is shaded");
    let bars = svg.find("<title>item").expect("bars");
    assert!(shade < bars, "behind them");
    // Its label is drawn over the bars, inside the shade (below the
    // panel's title), at the picture's own text size.
    let label = svg.find(">server down<").expect("the outage is labelled");
    assert!(label > bars, "over the bars");
    let tag = &svg[svg[..label].rfind("<text").expect("its text")..label];
    assert!(!tag.contains("font-size"), "{tag}");
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

#[test]
fn a_wrong_row_is_drawn_wrong_whatever_it_claims() {
    let (_, mut rows) = run(2, 8);
    let list = items(8, 1);
    // Item 1 claims success with item 2's hash.
    rows[1].outcome = Ok(list[2].expected_result());
    let report = Report::build(&list, &rows, {
        let mut facts = RunFacts::new("test", crate::protocol::Phases::Two);
        facts.concurrency = 2;
        facts.elapsed = Duration::from_secs(1);
        facts
    });
    assert_eq!(report.wrong, 1);
    let svg = render(&report, &rows, None);
    assert_eq!(svg.matches(r#"class="wrong""#).count(), 1, "{svg}");
    // Solid even when the bars have two shades.
    let shaded = with_a_service_time(&report, &rows);
    assert!(!shaded.contains(r#"class="wrong l""#), "{shaded}");
    assert_eq!(shaded.matches(r#"class="wrong""#).count(), 1);
    assert!(svg.contains("item 1: wrong"), "its tooltip says so");
    assert!(svg.contains(">wrong 1</text>"), "and the legend counts it");
}

#[test]
fn the_shade_swatches_are_the_colour_of_the_bars() {
    let (report, rows) = run(2, 4);
    let svg = with_a_service_time(&report, &rows);
    for label in ["the server's service time", "waiting on the client"] {
        let at = svg.find(&format!(">{label}<")).expect("a legend entry");
        let swatch = &svg[svg[..at].rfind("<rect").expect("its swatch")..at];
        assert!(swatch.contains(r##"fill="#4c78a8""##), "{swatch}");
    }
}

/// The picture of a run in which the server logged item 0's service time,
/// so the bars have two shades.
fn with_a_service_time(report: &Report, rows: &[Row]) -> String {
    let mut timeline = Timeline::new(report, rows, &[], Instant::now());
    timeline.service = vec![Service {
        id: 0,
        start_us: 1_000,
        end_us: 4_000,
    }];
    render_stack(std::slice::from_ref(&timeline), None)
}

#[test]
fn a_reread_run_has_the_tasks_it_kept_and_its_page_draws_them() {
    use crate::store::{DbTarget, Store};
    let target = DbTarget::memory();
    let epoch = Instant::now();
    let mut store = Store::create_run(&target, epoch, "test").unwrap();
    let (report, _) = run(2, 4);
    let trace = crate::sample::task_trace(3, 2, true);
    store.record_tasks(&trace).unwrap();
    super::keep(&mut store, &report, &[], epoch).unwrap();
    let timeline = super::reread(&store).unwrap().expect("kept");
    assert_eq!(timeline.tasks, Some(trace));
    assert!(super::render_page(&[timeline]).contains(r#"<section id="tasks""#));
}
