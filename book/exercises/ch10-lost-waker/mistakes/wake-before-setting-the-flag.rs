//! (written blind) `set` takes the waiters and wakes them before it sets the flag, so a waiter polled in between still sees the event unset, leaves a fresh waker that nobody will ever take, and sleeps for ever.
//? if a woken waiter is polled before the flag is set, what does it see, and who wakes it after that?
let waiting = std::mem::take(&mut self.lock().waiting);
// Wake everyone first (outside the lock), then mark the event set.
for (_, waker) in waiting {
    waker.wake();
}
self.lock().set = true;
