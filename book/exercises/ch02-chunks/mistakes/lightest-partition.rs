//! (written blind) Picks the least loaded partition (min) instead of the busiest, so the makespan is underestimated and imbalance is below 1.
//? which partition decides when the last worker finishes, the least loaded one or another?
// region: 2
partitions
    .iter()
    .map(|part| part.iter().map(|item| service_time(item, model, seed)).sum::<Duration>())
    .min()
    .unwrap_or(Duration::ZERO)
