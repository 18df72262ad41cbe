//! (written blind) Hands the lock to the first waiter but forgets to free it when nobody waits, so after the last unlock the lock stays locked and the next lock() waits forever.
//? after the last holder unlocks with nobody waiting, what does the next `lock` find?
let next = self.waiters.borrow_mut().pop_front();
if let Some(ticket) = next {
    self.sched.unblock(ticket);
}
