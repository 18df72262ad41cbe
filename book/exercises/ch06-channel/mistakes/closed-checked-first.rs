//! Looks at the close before the queue: values sent before the close are still owed to the receivers, and returning None at once loses them.
//? when the channel is closed but the queue still holds values, what does your `recv` return?
loop {
    if self.closed.get() {
        return None;
    }
    if let Some(value) = self.queue.borrow_mut().pop_front() {
        return Some(value);
    }
    self.not_empty.wait();
}
