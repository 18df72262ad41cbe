//! Counts the tasks alive itself and, while the count is at the limit, wakes its own task and returns `Pending` to look again: the limit holds, and the spawner spins for as long as the slots are full.
//? while the slots are full, what wakes the spawner, and how often does it come back to ask?
let alive = std::rc::Rc::new(std::cell::Cell::new(0usize));
let mut tasks = Vec::with_capacity(items.len());
for item in items {
    std::future::poll_fn(|cx| {
        if alive.get() < limit {
            return std::task::Poll::Ready(());
        }
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
    .await;
    alive.set(alive.get() + 1);
    let (work, alive) = (job(item), alive.clone());
    tasks.push(handle.spawn(async move {
        let output = work.await;
        alive.set(alive.get() - 1);
        output
    }));
}
let mut outputs = Vec::with_capacity(tasks.len());
for task in tasks {
    outputs.push(task.await);
}
outputs
