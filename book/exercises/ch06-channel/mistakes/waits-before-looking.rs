//! Waits before looking at the queue: a value, or the close, that came before the call was notified to nobody, so it waits for a wake-up that never comes.
//? if a value was sent before `recv` was called, who will wake your wait for it?
loop {
    self.not_empty.wait();
    if let Some(value) = self.queue.borrow_mut().pop_front() {
        return Some(value);
    }
    if self.closed.get() {
        return None;
    }
}
