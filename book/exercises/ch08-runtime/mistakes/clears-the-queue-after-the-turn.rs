//! A lost wake-up: the turn runs a copy of the ready queue and then clears the queue, as if every id in it had been run; a task woken during the turn (a new task, a joiner, a task woken from another thread) is forgotten.
//? what becomes of an id pushed onto the ready queue while the turn is running, once the turn ends?
// region: 2
let mut root = pin!(future);
let root_waker = Waker::from(Arc::new(TaskWaker {
    id: ROOT,
    ready: self.inner.ready.clone(),
}));
root_waker.wake_by_ref();
loop {
    let ready: Vec<usize> = lock(&self.inner.ready.ids).iter().copied().collect();
    for id in ready {
        if id != ROOT {
            self.inner.run_task(id);
        } else if root
            .as_mut()
            .poll(&mut Context::from_waker(&root_waker))
            .is_ready()
        {
            return;
        }
    }
    // Everything in the queue has had its turn.
    lock(&self.inner.ready.ids).clear();
    self.inner.wait_for_events();
    self.inner.fire_timers();
    for waker in self.inner.yielded.take() {
        waker.wake();
    }
}
