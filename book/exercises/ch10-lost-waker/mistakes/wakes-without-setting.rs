//! Wakes the waiters but forgets to set the flag: each woken `Wait` finds the event still unset, waits again, and nothing will ever wake it a second time.
let waiting = std::mem::take(&mut self.lock().waiting);
for (_, waker) in waiting {
    waker.wake();
}
