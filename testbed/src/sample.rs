//! Made-up rows for tests of what is drawn from a run: no server, no
//! stage, just outcomes at known times. A module of its own, below
//! `timeline` (whose tests draw them) and `testing` (which passes them
//! on), so that neither has to import the other.

use crate::outcome::{ErrorKind, Failure};
use crate::store::{Lane, Row};
use crate::workload::Item;

/// A row per item, dealt round `lanes` lanes: each item starts 10 ms after
/// the one before it on its lane and takes 9 ms, and one in seven (ids 3,
/// 10, 17...) failed with `KO <500>`, whose `<` and `>` a picture must
/// escape.
///
/// ```
/// use testbed::sample::rows_on_lanes;
/// use testbed::workload::items;
///
/// let rows = rows_on_lanes(&items(8, 1), 4);
/// assert_eq!((rows[5].lane.0, rows[5].started_us), (1, 10_000));
/// assert!(rows[3].outcome.is_err());
/// ```
pub fn rows_on_lanes(items: &[Item], lanes: u32) -> Vec<Row> {
    items
        .iter()
        .map(|item| {
            let i = item.id.0;
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
                lane: Lane((i % u64::from(lanes)) as u32),
                db_conn: 1,
            }
        })
        .collect()
}
