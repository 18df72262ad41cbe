//! Takes the partition with the most items as the busiest: service times differ, so a short list of slow items can keep its worker busier than a long list of quick ones.
//? when service times differ, does the partition with the most items always keep its worker busiest?
// region: 2
partitions
    .iter()
    .max_by_key(|part| part.len())
    .map(|part| {
        part.iter()
            .map(|item| service_time(item, model, seed))
            .sum::<Duration>()
    })
    .unwrap_or_default()
