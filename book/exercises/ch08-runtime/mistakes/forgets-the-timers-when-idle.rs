//! With no task ready the loop sleeps in the selector with no timeout at all, forgetting the timer heap: a task asleep with nothing else going on is never woken.
//? with no task ready, how long may the selector sleep while a sleep's deadline waits in the heap?
// region: 4
let busy = !lock(&self.ready.ids).is_empty() || !self.yielded.borrow().is_empty();
let timeout = if busy { Some(Duration::ZERO) } else { None };
let mut events = Vec::new();
if let Err(e) = self.selector.borrow_mut().wait(&mut events, timeout) {
    panic!("the selector failed: {e}");
}
for event in events {
    if event.token == BELL {
        while matches!((&self.bell).read(&mut [0; 64]), Ok(n) if n > 0) {}
    } else if let Some(Some(waker)) = self
        .readers
        .borrow_mut()
        .get_mut(&event.token)
        .map(Option::take)
    {
        waker.wake();
    }
}
