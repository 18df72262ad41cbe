//! One configuration for property tests that must give the same verdict on
//! every run: a fixed seed, a bounded number of cases, and no
//! `proptest-regressions/` folder written beside the sources.
//!
//! A property test checks code against a small model over generated
//! inputs. With proptest's defaults the inputs change from run to run and
//! a failure is saved to a file next to the test: fine for a library, not
//! for an exercise whose tests a learner runs and a teacher compares. Here
//! every run draws the same cases, so a pass is a pass for everyone, and a
//! failure shrinks to the same minimal case each time.

use proptest::test_runner::{Config, RngAlgorithm, RngSeed};

/// The seed every property test of the exercises draws from.
const SEED: u64 = 0x5_10_01;

/// A proptest configuration with `cases` cases drawn from a fixed seed,
/// persisting no failures.
///
/// ```
/// use proptest::prelude::*;
/// use testbed::testing::proptest_config;
///
/// let mut runner = proptest::test_runner::TestRunner::new(proptest_config(16));
/// let verdict = runner.run(&(0u32..1000, 0u32..1000), |(a, b)| {
///     prop_assert_eq!(a + b, b + a, "{} + {} is {} + {}", a, b, b, a);
///     Ok(())
/// });
/// assert!(verdict.is_ok(), "addition commutes: {verdict:?}");
/// ```
pub fn proptest_config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(SEED),
        ..Config::default()
    }
}
