//! (written blind) The poll wakes its own task before returning `Pending` instead of leaving its waker in the slot, so the loop polls the task over and over and spins a core for as long as the work runs.
//? while the work runs, how often is the task polled, and what is the slot's waker there for?
// region: 2
let mut slot = lock(&self.slot);
if let Some(result) = slot.0.take() {
    return Poll::Ready(result);
}
// Not ready: ask to be polled again soon.
cx.waker().wake_by_ref();
Poll::Pending
