//! (written blind) Looks at `closed` only after a wake-up, so a recv on a channel that is already closed and empty waits for a notification that was sent before it started waiting: a lost wake-up, and the receiver never returns.
//? if the channel is already closed and empty when `recv` starts, what wakes your wait?
loop {
    if let Some(value) = self.queue.borrow_mut().pop_front() {
        return Some(value);
    }
    self.not_empty.wait();
    if self.closed.get() && self.queue.borrow().is_empty() {
        return None;
    }
}
