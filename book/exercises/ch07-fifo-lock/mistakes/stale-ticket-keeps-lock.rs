//! (written blind) Ignores unblock's answer, so when the first ticket's wait is already over (timed out, fiber gone) the lock stays locked for nobody while live waiters wait forever.
//? what does `unblock` tell you, and what if the first ticket's wait is already over?
let next = self.waiters.borrow_mut().pop_front();
match next {
    Some(ticket) => {
        self.sched.unblock(ticket);
    }
    None => self.locked.set(false),
}
