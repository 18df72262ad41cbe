//! Takes a permit before each spawn and drops it straight away (`let _ = slots.acquire().await;` binds nothing): the spawner never waits, and every task is alive at once.
//? what does `let _ = slots.acquire().await;` keep alive once that line has ended?
let slots = Semaphore::new(handle, limit);
let mut tasks = Vec::with_capacity(items.len());
for item in items {
    let _ = slots.acquire().await;
    tasks.push(handle.spawn(job(item)));
}
let mut outputs = Vec::with_capacity(tasks.len());
for task in tasks {
    outputs.push(task.await);
}
outputs
