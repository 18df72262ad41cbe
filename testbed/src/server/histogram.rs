//! The overshoot histogram: how late service times ran, in bounded memory.
//!
//! Two ranges of buckets: fine (10 us wide) up to 10 ms, where a server that
//! keeps up with its load lives, and coarse (1 ms wide) up to 1 s, where an
//! overloaded one does; beyond, one overflow bucket. Percentiles are read
//! as the upper edge of the bucket they fall in, so they never understate.
//!
//! Not here: the counters that fill it (`stats.rs`).

/// Width of the fine overshoot buckets. The timing test asserts a p99 below
/// 500 us, so the resolution must be much finer than that.
pub(super) const FINE_US: u64 = 10;

/// Fine buckets cover 0 to 10 ms of overshoot: the range of a server that
/// keeps up with its load.
const FINE_BUCKETS: u64 = 1_000;

/// Width of the coarse buckets, which take over from 10 ms.
const COARSE_US: u64 = 1_000;

/// Coarse buckets cover 10 ms to 1 s: an overloaded machine (thousands of
/// threads waking at once on two cores) still gets a meaningful p99.
/// Beyond 1 s, one overflow bucket, reported through the exact maximum.
const COARSE_BUCKETS: u64 = 990;

/// Fine, coarse and the overflow bucket: 1,991 counters, about 16 KB.
pub(super) const BUCKETS: usize = (FINE_BUCKETS + COARSE_BUCKETS + 1) as usize;

/// Where the fine buckets end and the coarse ones start, in microseconds.
const FINE_END_US: u64 = FINE_BUCKETS * FINE_US;

/// The histogram bucket of an overshoot of `us` microseconds.
pub(super) fn bucket_of(us: u64) -> usize {
    let index = if us < FINE_END_US {
        us / FINE_US
    } else {
        (FINE_BUCKETS + (us - FINE_END_US) / COARSE_US).min(BUCKETS as u64 - 1)
    };
    // At most BUCKETS - 1, which fits a usize.
    index as usize
}

/// The upper edge of bucket `index`, in microseconds; `None` for the
/// overflow bucket, which has none.
fn upper_edge(index: usize) -> Option<u64> {
    let index = index as u64;
    if index < FINE_BUCKETS {
        Some((index + 1) * FINE_US)
    } else if index < FINE_BUCKETS + COARSE_BUCKETS {
        Some(FINE_END_US + (index - FINE_BUCKETS + 1) * COARSE_US)
    } else {
        None
    }
}

/// The `q` quantile of the histogram, as the upper edge of the bucket it
/// falls in (so it never understates), but never above the true maximum.
pub(super) fn percentile(buckets: &[u64], count: u64, q: f64, max: u64) -> u64 {
    if count == 0 {
        return 0;
    }
    // The rank of the q-th observation, 1-based: p99 of 100 values is the 99th.
    let rank = ((q * count as f64).ceil() as u64).clamp(1, count);
    let mut seen = 0;
    for (i, &n) in buckets.iter().enumerate() {
        seen += n;
        if seen >= rank {
            return upper_edge(i).map_or(max, |edge| edge.min(max));
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_range_without_gaps() {
        for index in 1..BUCKETS - 1 {
            let lower = upper_edge(index - 1).expect("not the overflow bucket");
            assert_eq!(bucket_of(lower), index, "lower edge of {index}");
            let upper = upper_edge(index).expect("not the overflow bucket");
            assert_eq!(bucket_of(upper - 1), index, "top of {index}");
        }
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
        assert_eq!(upper_edge(BUCKETS - 1), None);
    }
}
