//! Spawns every task at once and has each wait for a permit inside itself: at most `limit` run at once, but every task is alive from the start, and the peak of tasks is the number of items.
//? at the start of the run, how many tasks has the executor got alive, and what are most of them doing?
let slots = Semaphore::new(handle, limit);
let mut tasks = Vec::with_capacity(items.len());
for item in items {
    let slots = slots.clone();
    let work = job(item);
    tasks.push(handle.spawn(async move {
        let _permit = slots.acquire().await;
        work.await
    }));
}
let mut outputs = Vec::with_capacity(tasks.len());
for task in tasks {
    outputs.push(task.await);
}
outputs
