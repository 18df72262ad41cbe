//! Keeps the tasks in a `TaskSet` and collects outputs as they end (`join_next`): the limit holds, but the outputs come back in the order the tasks ended, not the order of the items.
//? do your outputs come back in item order, or in the order the tasks happen to finish?
let mut set = executor::TaskSet::new(handle);
let mut outputs = Vec::new();
for item in items {
    if set.len() == limit
        && let Some(output) = set.join_next().await
    {
        outputs.push(output);
    }
    set.spawn(job(item));
}
while let Some(output) = set.join_next().await {
    outputs.push(output);
}
outputs
