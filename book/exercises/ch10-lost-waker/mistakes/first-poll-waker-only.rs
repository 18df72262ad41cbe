//! (written blind) The poll registers a waker only on its first poll and keeps it for good, so once the `Wait` is polled through another waker (moved into a `race`, a `timeout`, another task) `set` wakes the stale one and the task that waits now is lost.
//? when the `Wait` is polled through a new waker, does the list ever hear of that waker?
// region: 2
if state.set {
    return Poll::Ready(());
}
if this.id.is_none() {
    let id = state.next_id;
    state.next_id += 1;
    state.waiting.push((id, cx.waker().clone()));
    this.id = Some(id);
}
// Already registered: our waker is in the list.
Poll::Pending
