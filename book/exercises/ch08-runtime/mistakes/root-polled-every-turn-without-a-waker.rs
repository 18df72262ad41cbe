//! `block_on` ignores its own waker: it polls the root future once a turn with a no-op waker, as if that were enough; a root that wakes itself, or waits for a task, is never polled again once the loop goes to sleep in the selector.
//? if the root returns `Pending` and the loop then sleeps in the selector, which waker can bring the root back?
// region: 2
let mut root = pin!(future);
loop {
    // Polled every turn, so it needs no waker of its own.
    if root
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
        .is_ready()
    {
        return;
    }
    let ready = std::mem::take(&mut *lock(&self.inner.ready.ids));
    for id in ready {
        if id != ROOT {
            self.inner.run_task(id);
        }
    }
    self.inner.wait_for_events();
    self.inner.fire_timers();
    for waker in self.inner.yielded.take() {
        waker.wake();
    }
}
