//! Wakes every waiter while still holding the event's lock, and leaves their wakers in place: a woken task on another thread that polls its `Wait` at once blocks on the lock, and the wakers stay held after the event is set.
//? when a woken task on another thread polls its `Wait` at once, is the lock free, and are the wakers still held?
let mut state = self.lock();
state.set = true;
for (_, waker) in &state.waiting {
    waker.wake_by_ref();
}
