//! Step 6 of chapter 8: cancelling a future is dropping it, wherever it
//! stands. A request dropped by its timeout after it sent its line leaves a
//! connection with a reply still on its way; the next request on that
//! connection reads it as its own. The `InFlight` guard that `request`
//! holds marks such a connection poisoned, so that nobody reuses it.
//!
//! `cargo run -p executor --example step6_cancel`

use std::time::Duration;

use executor::{AsyncConn, Executor, exchange, request};
use testbed::latency::LatencyModel;
use testbed::outcome::Outcome;
use testbed::protocol::Phases;
use testbed::server::{ServerConfig, SlowServer};
use testbed::workload::{Item, items};

/// What happened to two items sent one after the other on one connection,
/// the first cut short by a timeout.
#[derive(Debug)]
struct Cut {
    /// The second item's outcome, if it was sent.
    second: Option<Outcome>,
    /// Its right answer.
    expected: Outcome,
    /// Was the connection marked poisoned after the timeout?
    poisoned: bool,
}

// ANCHOR: cut
/// Sends `first` with a `limit` shorter than the server's latency, then,
/// unless the connection says it is poisoned, `second` on the same
/// connection. `guarded` picks `request` (with its `InFlight` guard) or
/// the bare `exchange` (without).
fn cut_short(guarded: bool, latency: Duration, limit: Duration) -> std::io::Result<Cut> {
    let server = SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(latency),
        ..ServerConfig::default()
    })?;
    let executor = Executor::new()?;
    let handle = executor.handle();
    let [first, second]: [Item; 2] = items(2, 1).try_into().expect("two items");
    let expected = Ok(second.expected_result());
    let run = async move {
        let mut conn = AsyncConn::connect(&handle, server.addr()).await?;
        let attempt = if guarded {
            handle
                .timeout(limit, request(&mut conn, &first, Phases::One))
                .await
        } else {
            handle
                .timeout(limit, exchange(&mut conn, &first, Phases::One))
                .await
        };
        // The timeout dropped the request future: `GET` sent, `200` not
        // read. Whatever it had not done, it will never do.
        assert!(attempt.is_err(), "the limit is shorter than the latency");
        let poisoned = conn.is_poisoned();
        let second = if conn.is_reusable() {
            Some(request(&mut conn, &second, Phases::One).await)
        } else {
            None
        };
        Ok::<_, std::io::Error>((second, poisoned))
    };
    let (second, poisoned) = executor.block_on(run).map_err(std::io::Error::other)??;
    Ok(Cut {
        second,
        expected,
        poisoned,
    })
}
// ANCHOR_END: cut

fn main() -> std::io::Result<()> {
    let (latency, limit) = (Duration::from_millis(30), Duration::from_millis(10));
    println!("each reply takes {latency:?}; the first request is given {limit:?}");
    for guarded in [false, true] {
        let cut = cut_short(guarded, latency, limit)?;
        let how = if guarded {
            "request (InFlight guard)"
        } else {
            "exchange (no guard)     "
        };
        match &cut.second {
            Some(outcome) => println!(
                "{how}: poisoned {}; the second item got {}, {}",
                cut.poisoned,
                show(outcome),
                if *outcome == cut.expected {
                    "right"
                } else {
                    "WRONG: it is the first item's late reply"
                }
            ),
            None => println!(
                "{how}: poisoned {}; the second item waits for a fresh connection",
                cut.poisoned
            ),
        }
    }
    Ok(())
}

fn show(outcome: &Outcome) -> String {
    match outcome {
        Ok(hash) => format!("200 {hash}"),
        Err(failure) => format!("a failure: {failure}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LATENCY: Duration = Duration::from_millis(20);
    const LIMIT: Duration = Duration::from_millis(2);

    #[test]
    fn without_the_guard_the_next_request_reads_the_late_reply() {
        let cut = cut_short(false, LATENCY, LIMIT).expect("the run works");
        assert!(!cut.poisoned);
        let second = cut.second.expect("the connection looked reusable");
        assert!(second.is_ok(), "a well-formed reply: {second:?}");
        assert_ne!(second, cut.expected, "and someone else's");
    }

    #[test]
    fn with_the_guard_the_connection_is_poisoned_and_not_reused() {
        let cut = cut_short(true, LATENCY, LIMIT).expect("the run works");
        assert!(cut.poisoned);
        assert!(cut.second.is_none());
    }
}
