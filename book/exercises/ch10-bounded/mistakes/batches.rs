//! Spawns `limit` tasks, waits for all of them, then the next `limit`: the limit holds and the order too, but one slow item holds its whole batch back, and the slots it leaves idle wait with it.
//? when one item in a group of `limit` is slow, what do the other slots do while it runs?
let mut outputs = Vec::new();
let mut items = items.into_iter().peekable();
while items.peek().is_some() {
    let batch: Vec<_> = items.by_ref().take(limit).map(|item| handle.spawn(job(item))).collect();
    for task in batch {
        outputs.push(task.await);
    }
}
outputs
