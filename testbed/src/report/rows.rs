//! What the stored rows say: each row's verdict against the item it
//! claims to be (right, a failure, or wrong), and the latency percentiles
//! over all of them.

use crate::outcome::ErrorKind;
use crate::store::Row;
use crate::workload::Item;

use super::LatencyMs;

/// What one stored row says about its item.
pub(super) enum Verdict {
    Ok,
    Failed(ErrorKind),
    Wrong(String),
}

/// Classifies one stored row. `expected` is `None` when the server's faults
/// are unknown, `Some(None)` when it must have succeeded, `Some(Some(kind))`
/// when it forced that failure.
pub(super) fn verdict(item: &Item, row: &Row, expected: Option<Option<ErrorKind>>) -> Verdict {
    let id = item.id;
    match (&row.outcome, expected) {
        (Ok(hash), _) if *hash != item.expected_result() => Verdict::Wrong(format!(
            "item {id}: result {hash}, expected {}",
            item.expected_result()
        )),
        (Ok(_), Some(Some(kind))) => Verdict::Wrong(format!(
            "item {id}: recorded ok, but the server made it fail ({kind})"
        )),
        (Ok(_), _) => Verdict::Ok,
        (Err(failure), Some(expected)) if expected != Some(failure.kind) => {
            // Only the server can make an item NAK, KO or garble its reply;
            // a client that records one the server did not send invented it.
            // Timeouts, closes and refusals can come from the client's own
            // settings or the network, so they count as plain failures.
            let invented = matches!(
                failure.kind,
                ErrorKind::Nak | ErrorKind::Ko | ErrorKind::Protocol
            );
            if invented {
                let sent = expected.map_or("success".to_owned(), |k| k.to_string());
                Verdict::Wrong(format!(
                    "item {id}: recorded {failure}, but the server sent {sent}"
                ))
            } else {
                Verdict::Failed(failure.kind)
            }
        }
        (Err(failure), _) => Verdict::Failed(failure.kind),
    }
}

/// Per-item latency, from the stage starting on an item to its outcome
/// known, over every stored row.
pub(super) fn percentiles(rows: &[Row]) -> LatencyMs {
    let mut micros: Vec<u64> = rows
        .iter()
        .map(|r| r.finished_us.saturating_sub(r.started_us))
        .collect();
    if micros.is_empty() {
        return LatencyMs::default();
    }
    micros.sort_unstable();
    // Nearest-rank percentile: the smallest value with at least p% at or
    // below it.
    let rank = |p: f64| {
        let index = ((p / 100.0) * micros.len() as f64).ceil() as usize;
        micros[index.clamp(1, micros.len()) - 1] as f64 / 1e3
    };
    LatencyMs {
        p50: rank(50.0),
        p99: rank(99.0),
        max: rank(100.0),
    }
}
