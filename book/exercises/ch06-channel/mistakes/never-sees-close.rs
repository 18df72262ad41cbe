//! (written blind) Waits whenever the queue is empty without ever looking at `closed`, so after the close a receiver waits forever instead of returning None (its fiber never ends).
//? after `close`, what makes a receiver waiting on an empty queue return?
loop {
    if let Some(value) = self.queue.borrow_mut().pop_front() {
        return Some(value);
    }
    self.not_empty.wait();
}
