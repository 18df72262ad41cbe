//! Wakes every waiter through a copy of the list but leaves the list in place: the wakers stay held after the event is set, and setting it again wakes every task a second time.
//? after `set` has run, what is left in `waiting`, and what does a second `set` do with it?
let waiting: Vec<Waker> = {
    let mut state = self.lock();
    state.set = true;
    state.waiting.iter().map(|(_, waker)| waker.clone()).collect()
};
for waker in waiting {
    waker.wake();
}
