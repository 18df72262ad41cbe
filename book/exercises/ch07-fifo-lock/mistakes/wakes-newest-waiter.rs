//! (written blind) Hands the lock to the waiter that asked last (pop_back, as the article does), so waiters get it in LIFO order and the first one can starve.
//? which end of `waiters` holds the fiber that asked first?
let next = self.waiters.borrow_mut().pop_back();
match next {
    Some(ticket) if self.sched.unblock(ticket) => {}
    Some(_) | None => self.locked.set(false),
}
