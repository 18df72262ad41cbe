//! Counts the slots off by one (a semaphore of `limit + 1`, "the one running and the `limit` waiting"): one task more than the limit is alive at once.
//? with the semaphore you made, how many tasks can hold a permit at the same moment?
let slots = Semaphore::new(handle, limit + 1);
let mut tasks = Vec::with_capacity(items.len());
for item in items {
    let permit = slots.acquire().await;
    let work = job(item);
    tasks.push(handle.spawn(async move {
        let output = work.await;
        drop(permit);
        output
    }));
}
let mut outputs = Vec::with_capacity(tasks.len());
for task in tasks {
    outputs.push(task.await);
}
outputs
