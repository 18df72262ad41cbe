//! Chapter 2, exercise 1: contiguous chunks against round-robin.
//!
//! 02-fork deals the list out like cards ([`fork::partition`]). The other
//! obvious way to split a list among N workers is to cut it into N
//! contiguous chunks: the first tenth to worker 0, the next to worker 1...
//! Both give partitions whose sizes differ by at most one. Are they
//! equally good?
//!
//! A run lasts as long as its slowest worker, so the figure that matters is
//! the **makespan**: the largest total service time of any partition. We
//! measure it here without running anything and without a clock: the slow
//! server's service times are a pure function of `(seed, id, phase)`
//! ([`LatencyModel::sample`]), so the cost of every partition can be added
//! up exactly. Single-phase requests (`GET`) keep the arithmetic plain.
//!
//! [`imbalance`] is the makespan divided by the perfect share (the total
//! divided by N): 1.0 means every worker ends at the same moment; 2.0 means
//! the run takes twice as long as it would with a perfect split.
//!
//! Seven items among three workers: the first `7 % 3` chunks get one more.
//! With a fixed service time the makespan is the biggest chunk's work:
//!
//! ```
//! use std::time::Duration;
//! use ch02_chunks::{chunks, makespan};
//! use testbed::latency::LatencyModel;
//!
//! assert_eq!(chunks((0..7).collect(), 3), [vec![0, 1, 2], vec![3, 4], vec![5, 6]], "the first 7 % 3 chunks get one more");
//! let list = testbed::workload::items(7, 1);
//! let parts = chunks(list.iter().collect(), 3);
//! let model = LatencyModel::Fixed(Duration::from_millis(10));
//! assert_eq!(makespan(&parts, &model, 1), Duration::from_millis(30), "the busiest chunk's work: 3 items of 10 ms");
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch02-chunks");

use std::time::Duration;

use testbed::latency::LatencyModel;
use testbed::protocol::Phase;
use testbed::workload::Item;

// ANCHOR: chunks
/// Cuts `items` into `n` contiguous chunks, in order, whose sizes differ by
/// at most one (the first `len % n` chunks get one item more). There are
/// always `n` chunks; with fewer than `n` items some are empty.
///
/// # Panics
///
/// If `n` is zero.
pub fn chunks<T>(items: Vec<T>, n: usize) -> Vec<Vec<T>> {
    assert!(n > 0, "cannot cut a list into zero chunks");
    // TODO: when the length does not divide by n, how many items does each chunk get, and which chunks get one more?
    todo!("when the length does not divide by n, how many items does each chunk get, and which chunks get one more?")
}
// ANCHOR_END: chunks

/// The service time of one single-phase item, as the server will apply it.
pub fn service_time(item: &Item, model: &LatencyModel, seed: u64) -> Duration {
    model.sample(seed, item.id, Phase::Get)
}

// ANCHOR: makespan
/// How long the slowest partition keeps its worker busy: the largest sum
/// of [`service_time`] over a partition. Zero for no partitions.
pub fn makespan(partitions: &[Vec<&Item>], model: &LatencyModel, seed: u64) -> Duration {
    // TODO: what does each partition cost the server, request line by request line, and which partition decides how long the run takes?
    todo!("what does each partition cost the server, request line by request line, and which partition decides how long the run takes?")
}
// ANCHOR_END: makespan

/// The makespan over the perfect share: 1.0 is a perfect split.
pub fn imbalance(partitions: &[Vec<&Item>], model: &LatencyModel, seed: u64) -> f64 {
    let total: Duration = partitions
        .iter()
        .flatten()
        .map(|item| service_time(item, model, seed))
        .sum();
    let share = total.as_secs_f64() / partitions.len().max(1) as f64;
    if share == 0.0 {
        return 1.0;
    }
    makespan(partitions, model, seed).as_secs_f64() / share
}

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::workload::items;

    const WORKERS: usize = 8;
    const SEED: u64 = 1;

    fn bimodal() -> LatencyModel {
        "bimodal:0.1:100ms:5ms"
            .parse()
            .expect("a valid latency spec")
    }

    #[test]
    fn chunks_are_contiguous_and_even() {
        for len in 0..40 {
            for n in 1..10 {
                let list: Vec<usize> = (0..len).collect();
                let parts = chunks(list.clone(), n);
                assert_eq!(
                    parts.len(),
                    n,
                    "{len} items should be cut into exactly {n} chunks, some maybe empty"
                );
                // In order and contiguous: gluing them back gives the list.
                assert_eq!(
                    parts.concat(),
                    list,
                    "the chunks, glued back in order, should give the list (len {len}, n {n})"
                );
                let sizes: Vec<usize> = parts.iter().map(Vec::len).collect();
                let (min, max) = (sizes.iter().min(), sizes.iter().max());
                assert!(
                    max.zip(min).is_some_and(|(a, b)| a - b <= 1),
                    "chunk sizes should differ by at most one (len {len}, n {n}): {sizes:?}"
                );
            }
        }
    }

    #[test]
    fn makespan_is_the_busiest_partition() {
        let list = items(7, SEED);
        let fixed = LatencyModel::Fixed(Duration::from_millis(10));
        let parts = fork::partition(list.iter(), 3); // sizes 3, 2, 2
        assert_eq!(
            makespan(&parts, &fixed, SEED),
            Duration::from_millis(30),
            "the makespan should be the busiest partition's work (3 items of 10 ms), not the total"
        );
        assert_eq!(
            makespan(&[], &fixed, SEED),
            Duration::ZERO,
            "no partitions should cost nothing"
        );
        // 70 ms of work, 30 ms for the busiest of 3: 30 / (70 / 3).
        let expected = 30.0 / (70.0 / 3.0);
        assert!(
            (imbalance(&parts, &fixed, SEED) - expected).abs() < 1e-9,
            "the imbalance should be the makespan over a perfect share"
        );
    }

    #[test]
    fn the_busiest_partition_is_the_costliest_not_the_longest() {
        // Three quick items against one slow one: the short list is the
        // one that keeps its worker busy longest.
        let model = bimodal();
        let list = items(200, SEED);
        let cost = |item: &&Item| service_time(item, &model, SEED);
        let quick: Vec<&Item> = list
            .iter()
            .filter(|i| cost(i) == Duration::from_millis(5))
            .take(3)
            .collect();
        let slow: Vec<&Item> = list
            .iter()
            .filter(|i| cost(i) == Duration::from_millis(100))
            .take(1)
            .collect();
        assert_eq!(
            (quick.len(), slow.len()),
            (3, 1),
            "the test needs 3 quick items and 1 slow one"
        );
        assert_eq!(
            makespan(&[quick, slow], &model, SEED),
            Duration::from_millis(100),
            "the makespan should be the partition with the most service time, not the most items"
        );
    }

    // ANCHOR: sorted
    #[test]
    fn a_list_sorted_by_cost_ruins_chunks_but_not_round_robin() {
        // A list in an order that follows cost, as lists fetched with
        // `ORDER BY size` do: here, cheapest first.
        let model = bimodal();
        let mut list = items(800, SEED);
        list.sort_by_key(|item| service_time(item, &model, SEED));

        let dealt = fork::partition(list.iter(), WORKERS);
        let cut = chunks(list.iter().collect(), WORKERS);
        let (dealt, cut) = (
            imbalance(&dealt, &model, SEED),
            imbalance(&cut, &model, SEED),
        );
        // The last chunk holds every slow item: the run takes several
        // times as long as it should. Dealt, the slow items are spread.
        assert!(
            dealt < 1.1,
            "dealt round-robin, the slow items should be spread evenly: imbalance {dealt:.2}"
        );
        assert!(
            cut > 3.0,
            "cut in chunks, the last chunk should hold every slow item: imbalance {cut:.2}"
        );
    }
    // ANCHOR_END: sorted

    #[test]
    fn in_random_order_neither_split_wins() {
        // The slow server's costs are independent of the position in the
        // list, so a chunk is as random a sample as a dealt hand: averaged
        // over seeds, the two splits are just as uneven.
        let model = bimodal();
        let seeds = 1..=20u64;
        let mean = |split: &dyn Fn(&[Item]) -> Vec<Vec<&Item>>| {
            let total: f64 = seeds
                .clone()
                .map(|seed| {
                    let list = items(800, seed);
                    imbalance(&split(&list), &model, seed)
                })
                .sum();
            total / 20.0
        };
        let dealt = mean(&|list| fork::partition(list.iter(), WORKERS));
        let cut = mean(&|list| chunks(list.iter().collect(), WORKERS));
        assert!(
            (dealt - cut).abs() < 0.05,
            "in random order both splits should be as uneven: dealt {dealt:.3}, cut {cut:.3}"
        );
        assert!(
            dealt > 1.0 && cut > 1.0,
            "random costs are never perfectly even"
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;
        use testbed::testing::proptest_config;

        /// The model: chunk `k` of `n` holds `len / n` items, one more for
        /// the first `len % n` chunks, taken from the list in order.
        fn model(len: usize, n: usize) -> Vec<Vec<usize>> {
            let mut next = 0;
            (0..n)
                .map(|k| {
                    let size = len / n + usize::from(k < len % n);
                    next += size;
                    (next - size..next).collect()
                })
                .collect()
        }

        proptest! {
            #![proptest_config(proptest_config(64))]

            #[test]
            fn chunks_match_the_model(len in 0usize..60, n in 1usize..12) {
                let list: Vec<usize> = (0..len).collect();
                prop_assert_eq!(
                    chunks(list, n),
                    model(len, n),
                    "{} items in {} chunks: the first {} chunks get {} items, the others {}",
                    len, n, len % n, len / n + 1, len / n
                );
            }

            #[test]
            fn makespan_matches_the_model(
                seed in any::<u64>(),
                cuts in proptest::collection::vec(0usize..12, 0..6),
                len in 0usize..30,
            ) {
                let list = items(len, seed);
                // Any partitions will do, even uneven or empty ones.
                let mut parts: Vec<Vec<&Item>> = vec![Vec::new(); cuts.len().max(1)];
                for (i, item) in list.iter().enumerate() {
                    let k = cuts.get(i % cuts.len().max(1)).copied().unwrap_or(0) % parts.len();
                    parts[k].push(item);
                }
                let model = bimodal();
                let busiest = parts
                    .iter()
                    .map(|part| part.iter().map(|i| model.sample(seed, i.id, Phase::Get)).sum::<Duration>())
                    .max()
                    .unwrap_or_default();
                prop_assert_eq!(
                    makespan(&parts, &model, seed),
                    busiest,
                    "seed {}: the makespan is the largest sum of service times (for this seed) over partitions of sizes {:?}",
                    seed,
                    parts.iter().map(Vec::len).collect::<Vec<_>>()
                );
            }
        }
    }
}
