//! Forgets to free the lock when nobody waits: the next fiber to call `lock` queues behind a holder that is gone, and waits forever.
//? with no waiter in line, who is the lock held for once your `unlock` returns?
loop {
    let Some(ticket) = self.waiters.borrow_mut().pop_front() else {
        return;
    };
    if self.sched.unblock(ticket) {
        return;
    }
}
