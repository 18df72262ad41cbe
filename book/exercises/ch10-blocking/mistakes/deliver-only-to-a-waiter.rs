//! (written blind) The worker stores the result only when it finds a waker ("nobody waits, nothing to deliver"), so a result that is ready before the task's first poll is thrown away and the task waits for ever.
//? if the work finishes before the task first polls, where does the result wait for it?
let result = catch_unwind(AssertUnwindSafe(work))
    .map_err(|payload| BlockingError::Panicked(panic_message(payload.as_ref())));
let waker = {
    let mut slot = lock(&self.slot);
    match slot.1.take() {
        Some(waker) => {
            slot.0 = Some(result);
            Some(waker)
        }
        // The Blocking is gone or has not asked yet: nobody to deliver to.
        None => None,
    }
};
if let Some(waker) = waker {
    waker.wake();
}
