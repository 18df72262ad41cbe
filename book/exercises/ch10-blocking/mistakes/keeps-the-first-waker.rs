//! Stores a waker only if none is stored yet: a future polled again from another task (moved into a `race`, a `timeout`, a new task) keeps the first task's waker, and the worker wakes a task that no longer waits for it.
//? after the `Blocking` moves into a `race` or another task, is the waker in the slot still the waiting task's?
// region: 2
let mut slot = lock(&self.slot);
if let Some(result) = slot.0.take() {
    return Poll::Ready(result);
}
if slot.1.is_none() {
    slot.1 = Some(cx.waker().clone());
}
Poll::Pending
