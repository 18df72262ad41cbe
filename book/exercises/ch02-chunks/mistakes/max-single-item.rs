//! (written blind) Takes the slowest single item rather than the largest sum over a partition, so a partition of many medium items is not seen as the bottleneck.
//? can a partition of many medium items take longer than the one holding the single slowest item?
// region: 2
partitions
    .iter()
    .flatten()
    .map(|item| service_time(item, model, seed))
    .max()
    .unwrap_or(Duration::ZERO)
