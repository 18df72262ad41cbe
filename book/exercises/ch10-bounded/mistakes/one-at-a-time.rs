//! Spawns each task and awaits it before spawning the next: never more than one alive, right outputs in order, and no concurrency at all, whatever the limit.
//? how many jobs run at the same time in your loop, whatever `limit` says?
let _ = limit;
let mut outputs = Vec::new();
for item in items {
    outputs.push(handle.spawn(job(item)).await);
}
outputs
