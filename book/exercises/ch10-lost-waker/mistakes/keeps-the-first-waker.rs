//! Keeps the waker of the first poll and ignores later ones: once the `Wait` has moved to another task (a `race`, a spawned task), `set` wakes the old task and the one that waits now sleeps for ever.
//? after the `Wait` moves to another task, whose waker does `set` find in the list?
// region: 2
if state.set {
    this.id = None;
    return Poll::Ready(());
}
if this.id.is_none() {
    let id = state.next_id;
    state.next_id += 1;
    this.id = Some(id);
    state.waiting.push((id, cx.waker().clone()));
}
Poll::Pending
