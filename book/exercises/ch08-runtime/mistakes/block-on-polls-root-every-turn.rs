//! (written blind) block_on polls the root future on every turn of the loop, whenever any task, timer or socket woke the loop, instead of only when the root's own waker was called: the root is polled without being woken (stage 1 promises "when, and only when").
//? is the root future polled only after its own waker was called, or whenever anything at all woke the loop?
// region: 2
let waker = Waker::from(Arc::new(TaskWaker {
    id: ROOT,
    ready: self.inner.ready.clone(),
}));
let mut cx = Context::from_waker(&waker);
let mut future = pin!(future);
loop {
    // Polling is cheap: just ask the root whether it is done yet.
    if future.as_mut().poll(&mut cx).is_ready() {
        return;
    }
    // Run the tasks woken so far, in the order they were woken.
    let woken: Vec<usize> = lock(&self.inner.ready.ids).drain(..).collect();
    for id in woken {
        if id != ROOT {
            self.inner.run_task(id);
        }
    }
    // Sleep in the selector until a socket, a wake or a deadline.
    self.inner.wait_for_events();
    self.inner.fire_timers();
    let yielded: Vec<Waker> = self.inner.yielded.borrow_mut().drain(..).collect();
    for waker in yielded {
        waker.wake();
    }
}
