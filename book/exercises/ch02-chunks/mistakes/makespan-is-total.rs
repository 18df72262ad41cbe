//! (written blind) Adds up the service time of every partition instead of taking the busiest one, so the makespan is the total work and imbalance is about N instead of near 1.
//? for 8 workers with equal shares, what imbalance does your makespan give, when a perfect split is 1.0?
// region: 2
partitions
    .iter()
    .flatten()
    .map(|item| service_time(item, model, seed))
    .sum()
