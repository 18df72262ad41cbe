//! Wakes the waiter that asked last (`pop_back`), as the article's `pop()` does: under steady contention the first to ask can wait forever.
//? under steady contention, when does the fiber that asked first get the lock?
loop {
    let Some(ticket) = self.waiters.borrow_mut().pop_back() else {
        self.locked.set(false);
        return;
    };
    if self.sched.unblock(ticket) {
        return;
    }
}
