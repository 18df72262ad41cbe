//! (written blind) `set` calls every waker while it still holds the state's lock, so a waker that runs code touching the event (polls the `Wait` inline, asks `is_set`/`waiting`) deadlocks on the non-reentrant mutex.
//? what if a waker you call polls the `Wait` inline and asks for the lock that `set` still holds?
let mut state = self.lock();
if state.set {
    return;
}
state.set = true;
for (_, waker) in state.waiting.drain(..) {
    waker.wake();
}
