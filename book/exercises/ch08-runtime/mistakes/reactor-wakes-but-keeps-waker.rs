//! (written blind) On a socket's event the loop calls the reader's waker but leaves it in `readers` instead of replacing it with None, so the woken Readable cannot learn its event came: it waits again and, with no second event, forever.
//? after the loop calls a reader's waker, what left in `readers` shows that reader its event has arrived?
// region: 4
let timeout = if !lock(&self.ready.ids).is_empty() || !self.yielded.borrow().is_empty() {
    Some(Duration::ZERO)
} else {
    self.timers
        .borrow()
        .peek()
        .map(|Reverse((deadline, _))| deadline.saturating_duration_since(Instant::now()))
};
let mut events = Vec::new();
match self.selector.borrow_mut().wait(&mut events, timeout) {
    Ok(()) => {}
    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
    Err(e) => panic!("selector: {e}"),
}
for event in events {
    if event.token == BELL {
        let mut buf = [0u8; 64];
        loop {
            match (&self.bell).read(&mut buf) {
                Ok(0) => break,
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
    } else if let Some(Some(waker)) = self.readers.borrow().get(&event.token) {
        waker.wake_by_ref();
    }
}
