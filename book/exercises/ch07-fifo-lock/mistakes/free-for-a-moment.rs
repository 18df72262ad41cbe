//! Frees the lock, then wakes the first waiter: until that waiter runs the lock is free, and any fiber that calls `lock` in between barges in ahead of it.
self.locked.set(false);
loop {
    let Some(ticket) = self.waiters.borrow_mut().pop_front() else {
        return;
    };
    if self.sched.unblock(ticket) {
        return;
    }
}
