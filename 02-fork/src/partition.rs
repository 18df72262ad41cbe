//! Dealing the work list out to the workers, round-robin.
//!
//! Before it forks, the parent splits the list into one partition per
//! worker, like dealing cards: item 0 to worker 0, item 1 to worker 1, ...,
//! item N to worker 0 again. Each worker then owns its partition outright;
//! nothing is shared while they run, which is what lets them be separate
//! processes.
//!
//! Why deal instead of cutting the list into N contiguous chunks? Both give
//! partitions whose sizes differ by at most one. But a list often has an
//! order that correlates with cost (sorted by size, by customer, by date),
//! and a contiguous chunk inherits all of one end of it: one worker gets
//! every slow item and the others wait for it. Dealing spreads any such
//! run of slow items over every worker. Chapter 2's first exercise measures
//! the difference.
//!
//! Not here: what a worker does with its partition ([`crate::worker`]).

// ANCHOR: partition
/// Deals `items` round-robin into `n` partitions: item `i` goes to
/// partition `i % n`.
///
/// Every item lands in exactly one partition, the partitions' sizes differ
/// by at most one, and each partition keeps the items in list order. There
/// are always exactly `n` partitions; with fewer than `n` items some are
/// empty.
///
/// # Panics
///
/// If `n` is zero: there is nobody to deal to.
pub fn partition<T>(items: impl IntoIterator<Item = T>, n: usize) -> Vec<Vec<T>> {
    assert!(n > 0, "cannot partition a list among zero workers");
    let mut partitions: Vec<Vec<T>> = (0..n).map(|_| Vec::new()).collect();
    for (i, item) in items.into_iter().enumerate() {
        partitions[i % n].push(item);
    }
    partitions
}
// ANCHOR_END: partition

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deals_like_cards() {
        assert_eq!(
            partition(0..7, 3),
            vec![vec![0, 3, 6], vec![1, 4], vec![2, 5]]
        );
    }

    #[test]
    fn more_workers_than_items_leaves_some_empty() {
        assert_eq!(partition(["a"], 3), vec![vec!["a"], vec![], vec![]]);
    }

    #[test]
    #[should_panic(expected = "zero workers")]
    fn zero_workers_is_a_bug() {
        partition(0..1, 0);
    }
}
