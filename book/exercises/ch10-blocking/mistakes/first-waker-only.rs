//! (written blind) The poll keeps only the waker of its first poll, so after the future moves (polled through a new waker by a `race`/`timeout`/another task) the worker wakes a stale waker and the task that waits now is never woken.
//? if the future is polled again through a different waker, which task does the worker end up waking?
// region: 2
let mut slot = lock(&self.slot);
if let Some(result) = slot.0.take() {
    return Poll::Ready(result);
}
// Leave our waker once; the worker will use it.
if slot.1.is_none() {
    slot.1 = Some(cx.waker().clone());
}
Poll::Pending
