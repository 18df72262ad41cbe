//! (written blind) Pops from the back of the queue, so when several values are queued the receiver gets the newest first and the sender's order is reversed.
//? if the sender sends 0, 1, 2 before the receiver runs, in what order does your `recv` hand them out?
loop {
    if let Some(value) = self.queue.borrow_mut().pop_back() {
        return Some(value);
    }
    if self.closed.get() {
        return None;
    }
    self.not_empty.wait();
}
