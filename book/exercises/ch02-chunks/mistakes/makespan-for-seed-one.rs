//! Prices each item with the seed the examples use (1) instead of the seed it is given: the service times are those of another run, right only when the caller's seed happens to be 1.
//? which seed do your service times come from, and is it the one `makespan` was given?
// region: 2
partitions
    .iter()
    .map(|part| {
        part.iter()
            .map(|item| service_time(item, model, 1))
            .sum::<Duration>()
    })
    .max()
    .unwrap_or_default()
