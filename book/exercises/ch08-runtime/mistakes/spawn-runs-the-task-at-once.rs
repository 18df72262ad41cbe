//! Spawn polls the new task at once, inside the spawner's poll, instead of queueing it: the spawner is held up until the child first waits, and the order of events is no longer the order a runtime promises.
//? does the spawning task go on at once after `spawn`, or is it held up while the child runs to its first await?
// region: 7
let id = self.inner.next_id.replace(self.inner.next_id.get() + 1);
let task = Rc::new(Task {
    future: RefCell::new(Some(Box::pin(future))),
    ended: Cell::new(None),
    joiner: RefCell::new(None),
    waker: Waker::from(Arc::new(TaskWaker {
        id,
        ready: self.inner.ready.clone(),
    })),
});
self.inner.tasks.borrow_mut().insert(id, task.clone());
self.inner.run_task(id);
JoinHandle {
    id,
    task,
    inner: self.inner.clone(),
}
