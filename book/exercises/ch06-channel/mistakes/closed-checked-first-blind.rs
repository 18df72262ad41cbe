//! (written blind) Checks `closed` before the queue, so the values sent before the close are dropped: a receiver gets None while the queue still holds them.
//? after `close`, can the queue still hold values that a receiver is owed?
loop {
    if self.closed.get() {
        return None;
    }
    if let Some(value) = self.queue.borrow_mut().pop_front() {
        return Some(value);
    }
    self.not_empty.wait();
}
