//! (written blind) The worker takes the waker and wakes it before it puts the result in the slot, so a task polled in between finds nothing, leaves a new waker, and is never woken again.
//? if the woken task is polled before the result is written, what does it find, and who wakes it next?
let result = catch_unwind(AssertUnwindSafe(work))
    .map_err(|payload| BlockingError::Panicked(panic_message(payload.as_ref())));
// Tell the task first, so it gets going while the result is written.
let waker = lock(&self.slot).1.take();
if let Some(waker) = waker {
    waker.wake();
}
lock(&self.slot).0 = Some(result);
