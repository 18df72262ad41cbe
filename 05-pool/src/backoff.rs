//! How long to wait before the next connect after the server refused one:
//! exponential backoff with jitter.
//!
//! A client that reconnects at once, in a loop, while its server is down
//! burns a core and floods the server's port with handshakes; a thousand
//! such clients, all started by the same deployment, knock together at the
//! exact moment the server comes back, and knock it over again (a
//! "thundering herd", or reconnect storm). Two remedies, both here:
//!
//! - **exponential**: each failed attempt doubles the wait, up to a cap, so
//!   a long outage costs a handful of attempts, not thousands;
//! - **jitter**: each wait is drawn between half and all of that value, so
//!   clients that failed together do not retry together (Marc Brooker,
//!   "Exponential Backoff And Jitter", AWS Architecture Blog, 2015, calls
//!   this "equal jitter": it keeps half of the growth and spreads the rest).
//!
//! The draw is a pure function of a seed and the attempt number
//! ([`testbed::dice::splitmix`]), not of the clock, so a test can predict
//! every delay. Jitter only separates clients whose seeds differ: a real
//! client seeds it from something unique to it (its pid, its start time);
//! the stage binary uses `--seed`, so runs stay reproducible.
//!
//! Not here: when to try again (the client's reconnect gate).
//!
//! # Examples
//!
//! ```
//! use std::time::Duration;
//!
//! use pool::backoff::Backoff;
//!
//! let ms = Duration::from_millis;
//! let backoff = Backoff { base: ms(10), cap: ms(500) };
//! // After the third failure in a row: between half and all of 40 ms.
//! let third = backoff.delay(3, 7);
//! assert!(ms(20) <= third && third <= ms(40), "{third:?}");
//! // The same seed and attempt draw the same wait: a test can predict it.
//! assert_eq!(third, backoff.delay(3, 7));
//! // However long the outage, no wait is longer than the cap.
//! assert!(backoff.delay(30, 7) <= ms(500));
//! ```

use std::time::Duration;

use testbed::dice::{splitmix, unit};

/// The first wait after a refusal. Loopback refuses in microseconds, and a
/// restarting server is back within milliseconds: start small.
pub const DEFAULT_BASE: Duration = Duration::from_millis(10);

/// The longest wait. A server that has been down for seconds is probed about
/// once per cap: late by at most this much when it returns.
pub const DEFAULT_CAP: Duration = Duration::from_millis(500);

// ANCHOR: backoff
/// Exponential backoff with equal jitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The ceiling of the first wait.
    pub base: Duration,
    /// No wait is longer than this.
    pub cap: Duration,
}

impl Backoff {
    /// The wait before attempt `failures + 1`, after `failures` consecutive
    /// failed attempts (`failures` ≥ 1): between half and all of
    /// `min(cap, base × 2^(failures - 1))`, drawn from `seed`.
    pub fn delay(&self, failures: u32, seed: u64) -> Duration {
        let doublings = failures.saturating_sub(1).min(31);
        let ceiling = self.base.saturating_mul(1 << doublings).min(self.cap);
        let draw = unit(splitmix(splitmix(seed) ^ u64::from(failures)));
        ceiling.mul_f64(0.5 + 0.5 * draw)
    }
}
// ANCHOR_END: backoff

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff {
            base: DEFAULT_BASE,
            cap: DEFAULT_CAP,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn waits_double_up_to_the_cap_each_between_half_and_all() {
        let backoff = Backoff {
            base: 10 * MS,
            cap: 500 * MS,
        };
        for seed in 0..50 {
            for failures in 1..40 {
                let ceiling = (10 * MS * 2u32.pow((failures - 1).min(10))).min(500 * MS);
                let delay = backoff.delay(failures, seed);
                assert!(
                    delay >= ceiling / 2 && delay <= ceiling,
                    "seed {seed}, failures {failures}: {delay:?} outside [{:?}, {ceiling:?}]",
                    ceiling / 2
                );
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_waits_and_other_seeds_spread_them() {
        let backoff = Backoff::default();
        assert_eq!(backoff.delay(3, 7), backoff.delay(3, 7));
        // A hundred clients failing their third attempt together: their
        // retries spread over the whole window instead of landing at once.
        let mut waits: Vec<Duration> = (0..100).map(|seed| backoff.delay(3, seed)).collect();
        waits.sort();
        waits.dedup();
        assert!(waits.len() > 90, "only {} distinct waits", waits.len());
        let spread = waits[waits.len() - 1] - waits[0];
        assert!(spread > 15 * MS, "retries bunched within {spread:?}");
    }

    #[test]
    fn huge_attempt_counts_do_not_overflow() {
        let backoff = Backoff::default();
        assert!(backoff.delay(u32::MAX, 1) <= DEFAULT_CAP);
        assert!(backoff.delay(0, 1) <= DEFAULT_BASE);
    }
}
