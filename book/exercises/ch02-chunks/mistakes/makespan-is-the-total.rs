//! Adds up every partition's work: that is the total, what one worker would take alone; the workers run side by side, so the run lasts as long as the busiest one.
//? the workers run side by side: does the run last as long as all their work added up?
// region: 2
partitions
    .iter()
    .flatten()
    .map(|item| service_time(item, model, seed))
    .sum()
