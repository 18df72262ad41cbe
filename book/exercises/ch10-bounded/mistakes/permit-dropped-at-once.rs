//! (written blind) The loop waits for a permit before each spawn but binds it to `_`, which drops it on the spot, so the permit never goes into the task and the limit is never applied: every task is alive at once.
//? how long does the permit you waited for stay taken, and who holds it while the job runs?
let slots = Semaphore::new(handle, limit);
let mut tasks = Vec::with_capacity(items.len());
for item in items {
    // Wait for a free slot before spawning.
    let _ = slots.acquire().await;
    tasks.push(handle.spawn(job(item)));
}
let mut outputs = Vec::with_capacity(tasks.len());
for task in tasks {
    outputs.push(task.await);
}
outputs
