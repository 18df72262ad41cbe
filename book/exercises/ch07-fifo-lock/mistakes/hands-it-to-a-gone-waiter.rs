//! Hands the lock to the first ticket in line without checking that its fiber is still there: a waiter that went away takes the lock with it, and the lock stays locked with nobody to unlock it.
//? what if the fiber behind the first ticket in line has stopped waiting: who holds the lock then?
match self.waiters.borrow_mut().pop_front() {
    Some(ticket) => {
        self.sched.unblock(ticket);
    }
    None => self.locked.set(false),
}
