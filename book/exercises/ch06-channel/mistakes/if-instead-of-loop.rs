//! Waits once with an `if` instead of a `loop`: a notification carries no value, another receiver may take the one it announced first, and this one then returns None while the channel is still open.
//? when two receivers are woken for one value, what does the one that runs second get?
if self.queue.borrow().is_empty() && !self.closed.get() {
    self.not_empty.wait();
}
self.queue.borrow_mut().pop_front()
