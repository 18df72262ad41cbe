//! Adds up every partition's work: that is the total, what one worker would take alone; the workers run side by side, so the run lasts as long as the busiest one.
// region: 2
partitions
    .iter()
    .flatten()
    .map(|item| service_time(item, model, seed))
    .sum()
