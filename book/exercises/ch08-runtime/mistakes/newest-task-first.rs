//! FIFO order broken: each turn runs the ready queue newest first, so tasks spawned a, b, c start c, b, a, and a task woken early waits behind every task woken after it.
//? for tasks spawned a, b, c, in what order does your turn run them, and what order does the runtime promise?
// region: 2
let mut root = pin!(future);
let root_waker = Waker::from(Arc::new(TaskWaker {
    id: ROOT,
    ready: self.inner.ready.clone(),
}));
root_waker.wake_by_ref();
loop {
    let ready = std::mem::take(&mut *lock(&self.inner.ready.ids));
    for id in ready.into_iter().rev() {
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
    self.inner.wait_for_events();
    self.inner.fire_timers();
    for waker in self.inner.yielded.take() {
        waker.wake();
    }
}
