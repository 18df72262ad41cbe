//! Looks at the queue again and again instead of waiting on the notification: the fiber never gives the scheduler back, so the sender never runs and the receiver spins forever.
//? while the queue is empty, when does your fiber let the sender run?
loop {
    if let Some(value) = self.queue.borrow_mut().pop_front() {
        return Some(value);
    }
    if self.closed.get() {
        return None;
    }
}
