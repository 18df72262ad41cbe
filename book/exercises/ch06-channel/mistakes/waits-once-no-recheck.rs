//! (written blind) Waits once and then takes whatever is at the front, without checking again in a loop, so a receiver woken for a value that another receiver took first returns None as if the channel were closed.
//? does `recv` look again after a wake-up finds the queue empty?
if let Some(value) = self.queue.borrow_mut().pop_front() {
    return Some(value);
}
if self.closed.get() {
    return None;
}
self.not_empty.wait();
self.queue.borrow_mut().pop_front()
