//! Frees the lock, wakes the first waiter, and yields until it has taken the lock: but a woken waiter returns from `lock` holding a lock handed over, it never takes it again, so the holder spins forever, taking turns with the others.
//? when a woken waiter returns from `lock`, does it take the lock itself, or was the lock already handed to it?
let Some(ticket) = self.waiters.borrow_mut().pop_front() else {
    self.locked.set(false);
    return;
};
self.locked.set(false);
self.sched.unblock(ticket);
while !self.locked.get() {
    self.sched.yield_now();
}
