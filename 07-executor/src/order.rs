//! The order the loop polls a batch of woken tasks in: the order they
//! were woken (the default), or one drawn from a seed
//! ([`Executor::with_seed`](crate::Executor::with_seed)).
//!
//! # Why the order matters
//!
//! A program that is correct only because task `a` happens to run before
//! task `b` leans on something no executor promises: tokio's multi-thread
//! runtime runs them on two threads at once, and even a one-thread loop
//! changes its order when a wake comes from another thread or a turn's
//! budget runs out. The bug hides in FIFO order, run after run, and shows
//! up on another machine. A seeded order shakes it out: every batch of
//! woken tasks is shuffled by a generator started from the seed, so eight
//! seeds are eight other orders, and a run that fails names its seed, which
//! replays the same order (the same trace, where nothing else in the run
//! depends on time). This is what shuttle's random scheduler does for
//! threads, and what tokio's `rng_seed` (an unstable builder option) does
//! for the runtime's own random choices, such as `select!`'s.
//!
//! Only the order *within* a batch changes: a task woken while a batch is
//! being polled still waits for the next batch, as in FIFO order. So a
//! seeded run is a run FIFO order could also have given, had the wakes
//! come in another order: it finds assumptions, not new kinds of runs.
//!
//! # Cost
//!
//! FIFO order is the default and touches no generator: the loop asks
//! [`Order::arrange`] once per batch, and for FIFO that is one branch.

use std::cell::Cell;

/// How the loop orders each batch of woken tasks.
#[derive(Debug)]
pub(crate) enum Order {
    /// In the order they were woken.
    Fifo,
    /// Shuffled by a generator started from this seed.
    Seeded {
        /// The seed the executor was made with, for [`Order::seed`].
        seed: u64,
        /// The generator's state, one step per draw.
        rng: Cell<SplitMix64>,
    },
}

impl Order {
    /// The order of an executor made with `seed`, or FIFO.
    pub(crate) fn new(seed: Option<u64>) -> Order {
        match seed {
            None => Order::Fifo,
            Some(seed) => Order::Seeded {
                seed,
                rng: Cell::new(SplitMix64(seed)),
            },
        }
    }

    /// The seed, if the order is drawn from one.
    pub(crate) fn seed(&self) -> Option<u64> {
        match self {
            Order::Fifo => None,
            Order::Seeded { seed, .. } => Some(*seed),
        }
    }

    // ANCHOR: arrange
    /// Puts a batch of woken tasks in the order they are to be polled.
    pub(crate) fn arrange<T>(&self, batch: &mut [T]) {
        if let Order::Seeded { rng, .. } = self {
            let mut state = rng.get();
            shuffle(&mut state, batch);
            rng.set(state);
        }
    }
    // ANCHOR_END: arrange
}

/// Fisher-Yates: every order of `items` equally likely (up to the
/// generator's own bias, which a test of orders does not care about).
pub(crate) fn shuffle<T>(rng: &mut SplitMix64, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        // `i + 1` choices for slot `i`: a multiply-shift maps the 64 random
        // bits onto them without the modulo's bias toward small numbers.
        let j = ((u128::from(rng.next()) * (i as u128 + 1)) >> 64) as usize;
        items.swap(i, j);
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit counter run through
/// a mixing function. Small, fast, and every seed gives a good stream,
/// seed 0 included: all a shuffle needs, and no dependency. The mixing
/// function is the testbed's, which draws the server's faults with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    /// The next 64 random bits: the mix of the counter's next value
    /// (`splitmix` adds the counter's step before it mixes).
    pub(crate) fn next(&mut self) -> u64 {
        let bits = testbed::dice::splitmix(self.0);
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_gives_the_published_stream() {
        // The first outputs for seed 0 of the reference implementation
        // (Vigna's splitmix64.c).
        let mut rng = SplitMix64(0);
        assert_eq!(rng.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn fifo_leaves_a_batch_as_it_was() {
        let mut batch: Vec<u32> = (0..10).collect();
        Order::new(None).arrange(&mut batch);
        assert_eq!(
            batch,
            (0..10).collect::<Vec<_>>(),
            "FIFO keeps the wake order"
        );
    }

    #[test]
    fn a_seed_gives_a_permutation_and_the_same_seed_the_same_one() {
        let arranged = |seed| {
            let order = Order::new(Some(seed));
            let mut batches = Vec::new();
            for _ in 0..3 {
                let mut batch: Vec<u32> = (0..10).collect();
                order.arrange(&mut batch);
                batches.push(batch);
            }
            batches
        };
        let first = arranged(7);
        for batch in &first {
            let mut sorted = batch.clone();
            sorted.sort_unstable();
            assert_eq!(
                sorted,
                (0..10).collect::<Vec<_>>(),
                "a shuffle loses nothing: {batch:?}"
            );
        }
        assert_eq!(first, arranged(7), "the same seed replays the same orders");
        assert_ne!(first, arranged(8), "another seed, other orders");
        assert_ne!(
            first[0], first[1],
            "the generator moves on from batch to batch"
        );
    }

    #[test]
    fn every_order_of_three_comes_up() {
        let order = Order::new(Some(1));
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            let mut batch = [0, 1, 2];
            order.arrange(&mut batch);
            seen.insert(batch);
        }
        assert_eq!(seen.len(), 6, "all six orders of three tasks: {seen:?}");
    }
}
