//! (written blind) The loop counts live tasks itself (a guard gives the slot back however the task ends) and, while all slots are taken, wakes itself and yields instead of waiting on a semaphore, so the waiting run polls in a busy loop and spins a core.
//? while all the slots are taken, how often does your loop run to look again?
use std::cell::Cell;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::Poll;

struct Slot(Rc<Cell<usize>>);
impl Drop for Slot {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

let alive = Rc::new(Cell::new(0usize));
let mut tasks = Vec::with_capacity(items.len());
for item in items {
    while alive.get() >= limit {
        // Let the running tasks get on, then look again.
        let mut yielded = false;
        poll_fn(|cx| {
            if yielded {
                Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await;
    }
    alive.set(alive.get() + 1);
    let slot = Slot(alive.clone());
    let job = job(item);
    tasks.push(handle.spawn(async move {
        let _slot = slot;
        job.await
    }));
}
let mut outputs = Vec::with_capacity(tasks.len());
for task in tasks {
    outputs.push(task.await);
}
outputs
