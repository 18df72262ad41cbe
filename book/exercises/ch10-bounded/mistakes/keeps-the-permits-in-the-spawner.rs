//! Keeps each permit beside its task's handle and drops it when the handle is awaited: after `limit` spawns the spawner waits for a permit that only comes back when it awaits a handle, which it never gets to.
//? after `limit` spawns, what gives a permit back while the spawner itself waits for one?
let slots = Semaphore::new(handle, limit);
let mut tasks = Vec::with_capacity(items.len());
for item in items {
    let permit = slots.acquire().await;
    tasks.push((handle.spawn(job(item)), permit));
}
let mut outputs = Vec::with_capacity(tasks.len());
for (task, permit) in tasks {
    outputs.push(task.await);
    drop(permit);
}
outputs
