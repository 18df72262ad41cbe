//! (written blind) The worker runs `work` without `catch_unwind`, so a panicking job kills the worker thread before anything is stored and the waiting task is never woken (no `Panicked` error ever reaches it).
//? when `work` panics, does a `Panicked` error ever reach the slot, and who tells the waiting task?
let value = work();
let waker = {
    let mut slot = lock(&self.slot);
    slot.0 = Some(Ok(value));
    slot.1.take()
};
if let Some(waker) = waker {
    waker.wake();
}
