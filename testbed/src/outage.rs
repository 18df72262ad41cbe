//! An outage window: a stretch of time during which the server is down.
//!
//! The per-line faults ([`crate::faults`]) hit one request at a time. A real
//! backend also goes away for a while (a deploy, a crash and restart, a
//! failover): for the whole window it refuses new connections and resets
//! the open ones, then it serves again. That is the scenario a client's
//! reconnect with backoff exists for (05-pool), and the one that shows
//! whether a stage records a failure for every item it could not send.
//!
//! An outage is a function of *time*, not of `(seed, id, phase)`: which
//! items it hits depends on when the client sends them, so the report
//! cannot predict them item by item. It can only check that nothing was
//! lost and nothing invented.
//!
//! Not here: how the server goes dark (`server/accept.rs`).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::duration::{format_duration, parse_duration};

/// The forms `--outage` accepts, quoted in every error about it.
pub const OUTAGE_FORMS: &str =
    "START+LENGTH, two durations from the server's start, e.g. 200ms+300ms, each at most a day";

/// The server is down from `start` to `start + length`, measured from the
/// moment it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outage {
    /// When the server goes down, from its start.
    pub start: Duration,
    /// How long it stays down.
    pub length: Duration,
}

impl Outage {
    /// When the server serves again, from its start.
    pub fn end(&self) -> Duration {
        self.start.saturating_add(self.length)
    }

    /// Whether the server is down `elapsed` after its start. The window is
    /// half-open: down at `start`, up again at `end`.
    pub fn covers(&self, elapsed: Duration) -> bool {
        self.start <= elapsed && elapsed < self.end()
    }
}

/// Why an `--outage` spec was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad outage '{spec}': expected {OUTAGE_FORMS}, with a LENGTH above zero")]
pub struct OutageSpecError {
    spec: String,
}

impl FromStr for Outage {
    type Err = OutageSpecError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let bad = || OutageSpecError {
            spec: spec.to_owned(),
        };
        let (start, length) = spec.split_once('+').ok_or_else(bad)?;
        let start = parse_duration(start).ok_or_else(bad)?;
        let length = parse_duration(length).ok_or_else(bad)?;
        // A window of no length is no outage; saying so beats ignoring it.
        if length.is_zero() {
            return Err(bad());
        }
        Ok(Outage { start, length })
    }
}

impl fmt::Display for Outage {
    /// The spec form, so a window can be printed and parsed back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}+{}",
            format_duration(self.start),
            format_duration(self.length)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn parses_prints_and_covers_its_window() {
        let outage: Outage = "200ms+300ms".parse().expect("a valid spec");
        assert_eq!(
            outage,
            Outage {
                start: ms(200),
                length: ms(300)
            }
        );
        assert_eq!(outage.to_string().parse(), Ok(outage));
        assert!(!outage.covers(ms(199)));
        assert!(outage.covers(ms(200)) && outage.covers(ms(499)));
        assert!(!outage.covers(ms(500)));
        assert_eq!("0+1s".parse::<Outage>().map(|o| o.end()), Ok(ms(1000)));
    }

    #[test]
    fn rejects_with_the_accepted_form() {
        for bad in [
            "", "200ms", "200ms+", "+300ms", "200ms+0", "-1ms+2ms", "1s-2s",
        ] {
            let error = bad.parse::<Outage>().expect_err(bad).to_string();
            assert!(error.contains("START+LENGTH"), "{bad}: {error}");
        }
    }
}
