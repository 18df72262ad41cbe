//! Runs the work without `catch_unwind`: a panic in it unwinds the worker's thread before any result is stored, so the task waits for ever for a result that will never come.
//? if `work` panics, does the worker's thread live long enough to store anything for the task?
let result = Ok(work());
let waker = {
    let mut slot = lock(&self.slot);
    slot.0 = Some(result);
    slot.1.take()
};
if let Some(waker) = waker {
    waker.wake();
}
