//! (written blind) Wakes every waiter while keeping the lock locked, and each of them returns from lock() believing it holds the lock: no mutual exclusion.
//? how many fibers can return from `lock` after one `unlock` of yours?
let waiters: Vec<WakeTicket> = self.waiters.borrow_mut().drain(..).collect();
if waiters.is_empty() {
    self.locked.set(false);
}
for ticket in waiters {
    self.sched.unblock(ticket);
}
