//! Wakes every waiter instead of one: each returns from `lock` believing it holds the lock, and they all run their critical sections at once.
//? if every waiter wakes at once, how many of them run their critical section at the same time?
let waiters: Vec<WakeTicket> = self.waiters.borrow_mut().drain(..).collect();
if waiters.is_empty() {
    self.locked.set(false);
}
for ticket in waiters {
    self.sched.unblock(ticket);
}
