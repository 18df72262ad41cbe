//! Frees the lock, then wakes the first waiter: until that waiter runs the lock is free, and any fiber that calls `lock` in between barges in ahead of it.
//? between your `unlock` and the moment the woken waiter runs, can another fiber's `lock` find the lock free?
self.locked.set(false);
loop {
    let Some(ticket) = self.waiters.borrow_mut().pop_front() else {
        return;
    };
    if self.sched.unblock(ticket) {
        return;
    }
}
