//! Wakes the waiters but forgets to set the flag: each woken `Wait` finds the event still unset, waits again, and nothing will ever wake it a second time.
//? when a woken `Wait` is polled and looks at the event, what does it find?
let waiting = std::mem::take(&mut self.lock().waiting);
for (_, waker) in waiting {
    waker.wake();
}
