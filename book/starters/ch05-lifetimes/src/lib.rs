//! Chapter 5, exercise 1: connections that do not all retire at once.
//!
//! `max_uses` retires a connection after N requests. A pool opens its
//! connections together (at start-up, or after a server restart), they
//! carry requests at the same pace, and so they reach N together: every
//! connection closes in the same millisecond and the pool reconnects all of
//! them at once, a small reconnect storm, again every N requests. The run
//! `05-pool --max-uses 10 --items 2000` does exactly that: 200 connections
//! in ten waves of twenty.
//!
//! The fix used by real pools (HikariCP calls it "variance" on its
//! `maxLifetime`) is to give each connection its *own* limit, a little
//! below N, drawn at random: the first wave then retires over several
//! requests instead of one, and the waves blur into a trickle.
//!
//! Write [`lifetime`]: a draw in the style of stage 5's backoff jitter, a
//! pure function of a seed and the connection's serial number, so a test
//! can predict it. [`retirements`] is a model of the pool that shows the
//! difference.
//!
//! Four connections that may carry 3 requests each retire together, every
//! third tick; a spread of 0.5 lets each carry 5 to 10 of a `max_uses` of 10:
//!
//! ```
//! use ch05_lifetimes::{lifetime, retirements};
//!
//! assert_eq!(retirements(4, 6, |_serial| 3), [0, 0, 4, 0, 0, 4], "a fixed limit of 3 retires all four every third tick");
//! assert_eq!(lifetime(10, 0.0, 1, 42), 10, "spread 0: exactly max_uses");
//! let spread = lifetime(10, 0.5, 1, 42);
//! assert!((5..=10).contains(&spread), "a spread of 0.5 of 10: from 5 to 10");
//! assert_eq!(spread, lifetime(10, 0.5, 1, 42), "the same seed and serial, the same draw");
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch05-lifetimes");

use testbed::dice::{splitmix, unit};

// ANCHOR: exercise
/// The number of requests the connection with this `serial` number may
/// carry: between `max_uses × (1 − spread)` (rounded up) and `max_uses`,
/// drawn from `seed` and `serial`; never less than 1. `spread` is in
/// `[0, 1]`: 0 gives every connection exactly `max_uses`.
pub fn lifetime(max_uses: u64, spread: f64, seed: u64, serial: u64) -> u64 {
    // TODO: how do you turn the seed and the serial number into a repeatable draw between 0 and 1, and how much of max_uses may that draw take off?
    todo!("how do you turn the seed and the serial number into a repeatable draw between 0 and 1, and how much of max_uses may that draw take off?")
}
// ANCHOR_END: exercise

/// A model pool: `conns` connections opened together, each carrying one
/// request per tick, each retired after `limit(serial)` requests and
/// replaced at once by a connection with the next serial number. Returns
/// how many connections retire at each tick, for `ticks` ticks.
pub fn retirements(conns: u64, ticks: usize, limit: impl Fn(u64) -> u64) -> Vec<u64> {
    let mut next_serial = 0;
    // For each place: (requests left on its connection).
    let mut left: Vec<u64> = (0..conns)
        .map(|_| {
            next_serial += 1;
            limit(next_serial - 1)
        })
        .collect();
    let mut retired = vec![0; ticks];
    for count in retired.iter_mut() {
        for requests in left.iter_mut() {
            *requests -= 1;
            if *requests == 0 {
                *count += 1;
                *requests = limit(next_serial);
                next_serial += 1;
            }
        }
    }
    retired
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lifetime_is_within_the_spread_and_at_least_one() {
        for seed in 0..20 {
            for serial in 0..200 {
                let n = lifetime(10, 0.5, seed, serial);
                assert!(
                    (5..=10).contains(&n),
                    "with max_uses 10 and spread 0.5 a lifetime should be 5 to 10, not {n} (seed {seed}, serial {serial})"
                );
                assert_eq!(
                    lifetime(10, 0.0, seed, serial),
                    10,
                    "spread 0 should give every connection exactly max_uses"
                );
                assert!(
                    lifetime(1, 1.0, seed, serial) >= 1,
                    "a lifetime should never be less than 1"
                );
                assert!(
                    lifetime(100, 1.0, seed, serial) >= 1,
                    "a lifetime should never be less than 1"
                );
            }
        }
    }

    #[test]
    fn lifetimes_are_repeatable_and_varied() {
        assert_eq!(
            lifetime(1000, 0.3, 7, 42),
            lifetime(1000, 0.3, 7, 42),
            "the same seed and serial number should give the same lifetime"
        );
        let mut seen: Vec<u64> = (0..100)
            .map(|serial| lifetime(1000, 0.3, 7, serial))
            .collect();
        seen.sort_unstable();
        seen.dedup();
        assert!(
            seen.len() > 50,
            "different serial numbers should give varied lifetimes, not only {} distinct ones",
            seen.len()
        );
        assert!(
            seen[0] >= 700 && seen[seen.len() - 1] <= 1000,
            "lifetimes should stay within max_uses × (1 − spread) and max_uses: {:?}..{:?}",
            seen.first(),
            seen.last()
        );
    }

    #[test]
    fn a_fixed_limit_retires_every_connection_at_once() {
        let retired = retirements(20, 100, |_| 10);
        assert_eq!(
            retired.iter().max(),
            Some(&20),
            "a fixed limit should retire all 20 at once"
        );
        assert_eq!(
            retired.iter().filter(|&&n| n > 0).count(),
            10,
            "a storm every 10 ticks, in 100 ticks"
        );
    }

    #[test]
    fn spread_limits_retire_a_few_at_a_time() {
        let retired = retirements(20, 200, |serial| lifetime(10, 0.5, 1, serial));
        let worst = retired.iter().max().copied().unwrap_or(0);
        assert!(
            worst <= 10,
            "spread lifetimes should retire at most half the pool at once, not {worst}"
        );
        // After a few generations the waves have blurred: most ticks see
        // some retirements, none sees a storm.
        let late = &retired[100..];
        assert!(
            late.iter().filter(|&&n| n > 0).count() > 60,
            "after a few generations most ticks should see some retirements: {late:?}"
        );
        assert!(
            late.iter().all(|&n| n <= 8),
            "after a few generations no tick should see a storm: {late:?}"
        );
    }

    #[test]
    fn a_fractional_spread_never_cuts_below_its_bound() {
        // 10 × (1 − 0.37) is 6.3: the shortest lifetime allowed is 7.
        for serial in 0..2000 {
            let n = lifetime(10, 0.37, 1, serial);
            assert!(
                (7..=10).contains(&n),
                "with max_uses 10 and spread 0.37 a lifetime should be 7 to 10 (6.3 rounded up), not {n} (serial {serial})"
            );
        }
    }

    #[test]
    fn the_largest_max_uses_neither_overflows_nor_escapes_its_bounds() {
        for spread in [0.0, 0.5, 1.0] {
            for serial in 0..100 {
                let n = lifetime(u64::MAX, spread, 1, serial);
                assert!(
                    n >= 1 && (spread > 0.0 || n == u64::MAX),
                    "max_uses u64::MAX, spread {spread}, serial {serial}: a lifetime from 1 to max_uses (exactly max_uses with spread 0), not {n}"
                );
            }
        }
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;
        use testbed::testing::proptest_config;

        proptest! {
            #![proptest_config(proptest_config(64))]

            #[test]
            fn every_lifetime_is_within_the_promised_bounds(
                max_uses in 1u64..2000,
                spread in 0.0f64..=1.0,
                seed in any::<u64>(),
                first in any::<u32>(),
            ) {
                // The model: at least ⌈max_uses × (1 − spread)⌉, and 1;
                // at most max_uses; the same draw for the same arguments.
                // (A hair below, so that rounding in the float cannot make an
                // integer bound one higher.)
                let lowest = ((max_uses as f64 * (1.0 - spread) - 1e-9).ceil() as u64).max(1);
                for serial in u64::from(first)..u64::from(first) + 50 {
                    let n = lifetime(max_uses, spread, seed, serial);
                    prop_assert!(
                        (lowest..=max_uses).contains(&n),
                        "max_uses {}, spread {}, seed {}, serial {}: the lifetime should be {} to {}, not {}",
                        max_uses, spread, seed, serial, lowest, max_uses, n
                    );
                    prop_assert_eq!(
                        n,
                        lifetime(max_uses, spread, seed, serial),
                        "max_uses {}, spread {}, seed {}, serial {}: the same arguments should give the same lifetime",
                        max_uses, spread, seed, serial
                    );
                }
            }
        }
    }
}
