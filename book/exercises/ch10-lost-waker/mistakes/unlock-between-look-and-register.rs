//! (written blind) The poll looks at the flag, releases the lock, and takes it again to leave its waker, so a `set` from another thread in between wakes nobody and the waker left afterwards is never called.
//? what if another thread calls `set` in the gap between your look at the flag and leaving your waker?
// region: 2
if state.set {
    return Poll::Ready(());
}
drop(state);
// Not set: register this poll's waker.
let waker = cx.waker().clone();
let mut state = this.event.lock();
match this.id {
    Some(id) => {
        if let Some(entry) = state.waiting.iter_mut().find(|(waiter, _)| *waiter == id) {
            entry.1 = waker;
        }
    }
    None => {
        let id = state.next_id;
        state.next_id += 1;
        state.waiting.push((id, waker));
        this.id = Some(id);
    }
}
Poll::Pending
