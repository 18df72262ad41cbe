//! Wakes its own task before returning `Pending` instead of leaving the waker for the worker: the loop polls the future again at once, over and over, and spins for as long as the work runs.
//? how many times does the loop poll this future during a second of work, if every `Pending` wakes itself?
// region: 2
let mut slot = lock(&self.slot);
if let Some(result) = slot.0.take() {
    return Poll::Ready(result);
}
cx.waker().wake_by_ref();
Poll::Pending
