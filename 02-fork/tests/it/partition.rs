//! The round-robin partition's properties, for any list and worker count.

use fork::partition;
use proptest::prelude::*;

proptest! {
    #[test]
    fn every_item_lands_once_and_sizes_differ_by_at_most_one(
        len in 0usize..500,
        n in 1usize..40,
    ) {
        let parts = partition(0..len, n);
        prop_assert_eq!(parts.len(), n);

        // Exactly once: hand every partition to its worker, 0..n, the way
        // the stage does, and count what the workers received.
        // (Indexing by worker number is the point: the source article numbered its
        // workers 1..=n and so handed out partitions that do not exist.)
        let mut seen = vec![0u32; len];
        let handed_out = (0..n).map(|worker| &parts[worker]);
        for &item in handed_out.flatten() {
            seen[item] += 1;
        }
        prop_assert!(seen.iter().all(|&count| count == 1), "{:?}", seen);

        let sizes: Vec<usize> = parts.iter().map(Vec::len).collect();
        let (min, max) = (sizes.iter().min(), sizes.iter().max());
        prop_assert!(max.zip(min).is_some_and(|(max, min)| max - min <= 1), "{:?}", sizes);
    }

    #[test]
    fn each_partition_keeps_list_order(len in 0usize..500, n in 1usize..40) {
        for part in partition(0..len, n) {
            prop_assert!(part.windows(2).all(|w| w[0] < w[1]), "{:?}", part);
        }
    }

    #[test]
    fn item_i_goes_to_worker_i_mod_n(len in 0usize..500, n in 1usize..40) {
        for (worker, part) in partition(0..len, n).iter().enumerate() {
            prop_assert!(part.iter().all(|&item| item % n == worker));
        }
    }
}
