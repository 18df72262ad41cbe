//! (written blind) Every item's task is spawned at once and waits for its permit inside itself, so at most `limit` jobs run at a time but all the tasks are alive together and the executor's peak of tasks is the number of items.
//? how many tasks exist at the peak, even though only `limit` jobs run at a time?
let slots = std::rc::Rc::new(Semaphore::new(handle, limit));
let mut tasks = Vec::with_capacity(items.len());
for item in items {
    let job = job(item);
    let slots = slots.clone();
    tasks.push(handle.spawn(async move {
        // Wait for a free slot before doing the work.
        let _permit = slots.acquire().await;
        job.await
    }));
}
let mut outputs = Vec::with_capacity(tasks.len());
for task in tasks {
    outputs.push(task.await);
}
outputs
