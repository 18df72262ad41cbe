//! (written blind) spawn polls the new task at once, up to its first await, like a JavaScript promise, instead of queueing it: it runs before the caller lets go, before the tasks already waiting in the FIFO queue, and re-entrantly inside the spawning task's poll.
//? when `spawn` returns, has the new task already run, ahead of the tasks that were queued before it?
// region: 7
let inner = &self.inner;
let id = inner.next_id.get();
inner.next_id.set(id + 1);
let waker = Waker::from(Arc::new(TaskWaker {
    id,
    ready: inner.ready.clone(),
}));
let task = Rc::new(Task {
    future: RefCell::new(Some(Box::pin(future))),
    ended: Cell::new(None),
    joiner: RefCell::new(None),
    waker,
});
inner.tasks.borrow_mut().insert(id, task.clone());
// Start it right away, so it gets going (and registers its wakers) before
// we return; after that, its waker queues it like any other task.
inner.run_task(id);
JoinHandle {
    id,
    task,
    inner: inner.clone(),
}
