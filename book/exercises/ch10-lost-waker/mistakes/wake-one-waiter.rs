//! (written blind) `set` wakes only one waiter (like a `notify_one`), so with several tasks waiting all but one keep `Pending` with wakers that nobody will call.
//? with three tasks waiting for the event, how many of them does `set` wake?
let waker = {
    let mut state = self.lock();
    if state.set {
        return;
    }
    state.set = true;
    // The latest waiter is the one to go.
    state.waiting.pop().map(|(_, waker)| waker)
};
if let Some(waker) = waker {
    waker.wake();
}
