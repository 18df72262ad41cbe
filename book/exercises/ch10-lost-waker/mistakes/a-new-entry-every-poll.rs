//! Pushes the waker of every poll as a new entry: the latest waker is there, but each poll adds one more, the `Wait`'s `Drop` removes only by id, and a task polled often piles up wakers (and wakes) for one wait.
//? for a `Wait` polled five times, how many entries are in `waiting`, and how many does its `Drop` remove?
// region: 2
if state.set {
    this.id = None;
    return Poll::Ready(());
}
let id = state.next_id;
state.next_id += 1;
this.id = Some(id);
state.waiting.push((id, cx.waker().clone()));
Poll::Pending
