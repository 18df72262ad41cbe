//! (written blind) Frees the lock and then wakes the first waiter, so a fiber calling lock() before the waiter runs takes the free lock and both believe they hold it.
//? if a fiber calls `lock` before the woken waiter runs, how many fibers end up believing they hold the lock?
self.locked.set(false);
let next = self.waiters.borrow_mut().pop_front();
if let Some(ticket) = next {
    self.sched.unblock(ticket);
}
