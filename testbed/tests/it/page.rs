//! The page and the trace, checked by what they contain; the page's script
//! is run in a real browser where one is installed (`testbed::browser`).

use std::time::Duration;

use serde_json::Value;
use testbed::browser::{self, count, distinct};
use testbed::protocol::Phases;
use testbed::report::{Report, RunFacts};
use testbed::testing::rows_on_lanes;
use testbed::timeline::{Service, Timeline, render_page, render_trace};
use testbed::turns::{LoopTurns, Turn};
use testbed::workload::items;

/// Twenty items on four lanes, 9 ms each, four at a time from 0, 10, 20...
/// ms; one in seven failed with `KO <500>`; each with one service time
/// from 1 to 6 ms into it; a loop that woke every 5 ms (ten turns kept,
/// three dropped) when `with_loop`.
fn timeline(with_loop: bool) -> Timeline {
    let list = items(20, 1);
    let rows = rows_on_lanes(&list, 4);
    let mut facts = RunFacts::new("test", Phases::Two);
    facts.concurrency = 4;
    facts.elapsed = Duration::from_millis(50);
    facts.mean_service = Duration::from_millis(5);
    let report = Report::build(&list, &rows, facts);
    let service = rows
        .iter()
        .map(|r| Service {
            id: r.id.0,
            start_us: r.started_us + 1_000,
            end_us: r.started_us + 6_000,
        })
        .collect();
    let turns = (0..10)
        .map(|i| Turn {
            woke_us: i * 5_000,
            slept_us: 4_000,
            busy_us: 100,
            ready: 2,
            timers: 0,
            ran: 0,
            done: 1,
        })
        .collect();
    Timeline::from_parts(&report, &rows, service)
        .with_turns(with_loop.then_some(LoopTurns { turns, dropped: 3 }))
}

#[test]
fn the_trace_has_the_fields_its_format_requires() {
    let trace: Value = serde_json::from_str(&render_trace(&timeline(true))).unwrap();
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    for event in events {
        for field in ["name", "ph", "pid", "tid"] {
            assert!(!event[field].is_null(), "{field} missing in {event}");
        }
        match event["ph"].as_str().unwrap() {
            "X" => assert!(event["ts"].is_u64() && event["dur"].is_u64(), "{event}"),
            "i" => assert!(event["ts"].is_u64() && event["s"] == "t", "{event}"),
            "M" => assert!(event["args"]["name"].is_string(), "{event}"),
            other => panic!("unexpected phase {other} in {event}"),
        }
    }
    let named = |name: &str| events.iter().filter(|e| e["name"] == name).count();
    assert_eq!(
        named("thread_name"),
        5,
        "a track for the loop and each of 4 lanes"
    );
    assert_eq!(named("wake"), 10);
    assert_eq!(events.iter().filter(|e| e["cat"] == "item").count(), 20);
    let wakes_on_the_loop = events
        .iter()
        .filter(|e| e["ph"] == "i")
        .all(|e| e["tid"] == 0);
    assert!(wakes_on_the_loop, "wake-ups are on the loop's track");
}

#[test]
fn the_page_inlines_its_data_and_fetches_nothing() {
    let mut timeline = timeline(true);
    timeline.bars[3].what = "ko: </script><script>alert(1)</script>".to_owned();
    let page = render_page(&[timeline]);
    assert!(page.contains("<title>test: 20 items</title>"));
    for fetch in [" src=", " href=", "@import", "fetch("] {
        assert!(!page.contains(fetch), "nothing is fetched: {fetch}");
    }
    let data = page
        .split(r#"<script id="data" type="application/json">"#)
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("the data block");
    assert!(
        data.contains(r"<\/"),
        "a detail's `</` cannot close the data's tag"
    );
    let data: Value = serde_json::from_str(data).expect("the data is JSON");
    assert_eq!(data["runs"][0]["id"].as_array().unwrap().len(), 20);
    // CI's check of the book's figures reads each run's report from the page.
    assert_eq!(data["runs"][0]["report"]["items"], 20);
    assert!(page.contains("10 loop wake-ups drawn (3 more not kept)"));
}

#[test]
fn a_wrong_row_is_keyed_wrong_and_the_shades_are_the_bars_colour() {
    let mut timeline = timeline(true);
    timeline.bars[0].wrong = true;
    let page = render_page(&[timeline]);
    let legend = page
        .split(r#"<div class="legend">"#)
        .nth(1)
        .and_then(|rest| rest.split("</div>").next())
        .expect("the legend");
    assert!(
        legend.contains(r#"data-outcome="wrong""#) && legend.contains("wrong 1"),
        "a row the report found wrong is keyed wrong, not ok: {legend}"
    );
    assert!(
        !legend.contains("#777777"),
        "the shade swatches are in the bars' colour, not grey: {legend}"
    );
    assert!(
        page.contains(r#""wrong":"#),
        "the script has a colour for wrong bars"
    );
}

#[test]
fn the_page_runs_in_a_browser_with_and_without_a_loop() {
    let dir = tempfile::tempdir().unwrap();
    for with_loop in [true, false] {
        let path = dir.path().join(format!("loop-{with_loop}.html"));
        std::fs::write(&path, render_page(&[timeline(with_loop)])).unwrap();
        // At 12.5 ms, items 4 to 7 (from 10 to 19 ms) are in flight.
        let Some(dom) = browser::load(&path, "t=12.5ms&item=3") else {
            return; // no chromium here: said by `load`
        };
        // Item 3 failed with `KO <500>` on lane 3, from 0 to 9 ms, 5 ms
        // of it at the server: its details, opened by the address.
        for said in [
            "<b>item 3</b> on connection #3",
            "service 5.0 ms, waiting 4.0 ms",
            "outcome: ko: KO &lt;500&gt;",
            "failure: ko",
        ] {
            assert!(dom.contains(said), "the details say {said}");
        }
        assert_eq!(browser::errors(&dom), "", "the page's script failed");
        assert_eq!(browser::attribute(&dom, "data-items"), Some("20"));
        assert_eq!(browser::attribute(&dom, "data-lanes"), Some("4"));
        assert_eq!(browser::attribute(&dom, "data-in-flight"), Some("4"));
        let wakes = browser::attribute(&dom, "data-wakes");
        if with_loop {
            assert_eq!(wakes, Some("10"));
        } else {
            assert_eq!(wakes, Some("0"));
        }
    }
}

#[test]
fn a_stack_of_two_runs_is_one_page_on_one_axis_with_a_readout_each() {
    let dir = tempfile::tempdir().unwrap();
    let mut second = timeline(false);
    second.label = "other".to_owned();
    second.bars.truncate(12);
    let path = dir.path().join("stack.html");
    std::fs::write(&path, render_page(&[timeline(true), second])).unwrap();
    let Some(dom) = browser::load(&path, "t=12.5ms") else {
        return;
    };
    assert_eq!(browser::errors(&dom), "");
    assert_eq!(browser::attribute(&dom, "data-items"), Some("32"));
    assert_eq!(count(&dom, r#"class="run-readout""#), 2);
    // Each run says its own count, never their sum: 4 in flight in both,
    // 4 done in the first, and 4 of the second's 12.
    assert_eq!(
        distinct(&dom, "data-in-flight")
            .into_iter()
            .collect::<Vec<_>>(),
        ["4"]
    );
    assert!(dom.contains("test: 4 in flight, 4 done; other: 4 in flight, 4 done"));
}

#[test]
fn the_page_and_the_trace_name_the_failure_kind_not_a_fault() {
    let page = render_page(&[timeline(true)]);
    let trace = render_trace(&timeline(true));
    assert!(!page.contains("fault injected"), "the page says failure");
    let trace: Value = serde_json::from_str(&trace).unwrap();
    let item = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "item 3")
        .expect("item 3's event");
    assert_eq!(item["args"]["failure"], "ko", "{item}");
    assert!(item["args"]["fault"].is_null(), "{item}");
}

#[test]
fn a_script_error_is_caught_in_the_page() {
    // The test's own check: a page whose data is broken must be reported,
    // not pass as a page with nothing wrong.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.html");
    let page = render_page(&[timeline(true)]).replace(r#""runs":"#, r#""nuns":"#);
    std::fs::write(&path, page).unwrap();
    let Some(dom) = browser::load(&path, "") else {
        return;
    };
    assert_ne!(browser::errors(&dom), "");
}
