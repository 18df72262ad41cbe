//! (written blind) Keeps the queue's RefCell borrowed across the wait, so the sender's borrow_mut in `send` panics (already borrowed) while the receiver is suspended.
//? while your receiver waits, is the queue's `RefCell` still borrowed when a sender calls `send`?
let mut queue = self.queue.borrow_mut();
loop {
    if let Some(value) = queue.pop_front() {
        return Some(value);
    }
    if self.closed.get() {
        return None;
    }
    self.not_empty.wait();
}
