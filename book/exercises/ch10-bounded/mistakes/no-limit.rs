//! Spawns one task per item and ignores `limit`: the outputs are right and in order, and every item's task is alive at once.
//? with a thousand items and a `limit` of 4, how many tasks are alive at once?
let _ = limit;
let tasks: Vec<_> = items.into_iter().map(|item| handle.spawn(job(item))).collect();
let mut outputs = Vec::with_capacity(tasks.len());
for task in tasks {
    outputs.push(task.await);
}
outputs
