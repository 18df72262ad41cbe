//! The timeline page of a real run, loaded in a real browser: what the page
//! draws is what the database holds.

use std::path::Path;
use std::time::{Duration, Instant};

use testbed::browser::{self, count};
use testbed::store::{DbTarget, Store};
use testbed::testing::run_bin;

const DEADLINE: Duration = Duration::from_secs(60);

#[test]
fn the_page_draws_every_item_lane_and_wake_up_and_scrubs_to_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let (page, db) = (dir.path().join("select.html"), dir.path().join("select.db"));
    let args = ["--items", "200", "--latency", "2ms", "--timeline"];
    let output = run_bin(
        env!("CARGO_BIN_EXE_04-select"),
        &[
            &args[..],
            &[page.to_str().unwrap(), "--db", db.to_str().unwrap()],
        ]
        .concat(),
        DEADLINE,
    );
    assert!(output.status.success(), "{output:?}");

    let store = Store::open(&DbTarget::File(db.clone()), Instant::now()).unwrap();
    let rows = store.rows().unwrap();
    let turns = store
        .turns()
        .unwrap()
        .expect("select has a loop, and recorded it");
    assert!(!turns.turns.is_empty());
    // An instant inside the run: the start of the middle item, plus one µs.
    let t = rows[rows.len() / 2].started_us + 1;
    let in_flight = rows
        .iter()
        .filter(|r| r.started_us <= t && t < r.finished_us)
        .count();

    let Some(dom) = browser::load(&page, &format!("t={t}us")) else {
        return; // no chromium here: said by `load`
    };
    assert_eq!(browser::errors(&dom), "", "the page's script failed");
    // The lanes are a canvas: the page says what it drew on `#lanes`.
    assert_eq!(browser::attribute(&dom, "data-items"), Some("200"));
    assert_eq!(
        browser::attribute(&dom, "data-lanes"),
        Some("20"),
        "one lane per connection"
    );
    let wakes = turns.turns.len().to_string();
    assert_eq!(browser::attribute(&dom, "data-wakes"), Some(wakes.as_str()));
    assert_eq!(count(&dom, r#"class="run-readout""#), 1);
    assert!(dom.contains("<title>select: 200 items</title>"));
    assert_eq!(
        browser::attribute(&dom, "data-in-flight"),
        Some(in_flight.to_string().as_str()),
        "the cursor at {t} µs"
    );
    screenshots(&page, dir.path());
}

/// Pictures at a desktop's width and a phone's, kept when
/// `TIMELINE_SHOTS` names a directory (for a person to look at).
fn screenshots(page: &Path, scratch: &Path) {
    let keep = std::env::var_os("TIMELINE_SHOTS").map(std::path::PathBuf::from);
    for width in [1280, 400] {
        let png = keep
            .as_deref()
            .unwrap_or(scratch)
            .join(format!("select-{width}.png"));
        assert!(
            browser::screenshot(page, "", width, &png),
            "{}",
            png.display()
        );
    }
}
