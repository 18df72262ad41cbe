//! Wakes only the first waiter, like a lock handing itself on: an event is for everybody, and every other task waiting for it sleeps for ever.
//? is an event for one waiter, like a lock handed on, or for everybody waiting when it is set?
let first = {
    let mut state = self.lock();
    state.set = true;
    if state.waiting.is_empty() {
        None
    } else {
        Some(state.waiting.remove(0))
    }
};
if let Some((_, waker)) = first {
    waker.wake();
}
