//! (written blind) A sliding window: once `limit` tasks run, the loop awaits the oldest one before spawning the next, so the outputs are in order but a slow early item keeps the next item waiting even when every other slot is free (and an item held back until the others finish never lets them start).
//? when the oldest task is slow and all the others are done, can the next item start?
let mut outputs = Vec::with_capacity(items.len());
let mut running = std::collections::VecDeque::with_capacity(limit);
for item in items {
    if running.len() == limit {
        let oldest = running.pop_front().expect("limit tasks are running");
        outputs.push(oldest.await);
    }
    running.push_back(handle.spawn(job(item)));
}
for task in running {
    outputs.push(task.await);
}
outputs
