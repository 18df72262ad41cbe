//! The reactor wakes a reader but leaves its waker in place: the reader, polled again, cannot tell that its event came, returns Pending, and (epoll reports a socket once each time it becomes readable) waits for ever.
//? when the reader is polled after its socket's event, how does it tell that the event came?
// region: 4
let busy = !lock(&self.ready.ids).is_empty() || !self.yielded.borrow().is_empty();
let timeout = if busy {
    Some(Duration::ZERO)
} else {
    let next = self.timers.borrow().peek().map(|Reverse((at, _))| *at);
    next.map(|at| at.saturating_duration_since(Instant::now()))
};
let mut events = Vec::new();
if let Err(e) = self.selector.borrow_mut().wait(&mut events, timeout) {
    panic!("the selector failed: {e}");
}
for event in events {
    if event.token == BELL {
        while matches!((&self.bell).read(&mut [0; 64]), Ok(n) if n > 0) {}
    } else if let Some(Some(waker)) = self.readers.borrow().get(&event.token) {
        waker.wake_by_ref();
    }
}
