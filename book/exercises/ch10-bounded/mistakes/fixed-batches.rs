//! (written blind) The items run in batches of `limit`, each batch awaited whole before the next starts, so the limit holds but one slow item holds up every later item while the other slots sit empty.
//? does an item wait for one free slot, or for a whole group of earlier items to finish?
let mut outputs = Vec::with_capacity(items.len());
let mut items = items.into_iter().peekable();
while items.peek().is_some() {
    let batch: Vec<_> = items
        .by_ref()
        .take(limit)
        .map(|item| handle.spawn(job(item)))
        .collect();
    for task in batch {
        outputs.push(task.await);
    }
}
outputs
