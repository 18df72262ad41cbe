//! Stores the result only when a task has left its waker: work that finishes before the first poll throws its result away, and the task then waits for ever.
//? when no waker is in the slot yet, what becomes of the result the worker has just computed?
let result =
    catch_unwind(AssertUnwindSafe(work)).map_err(|p| BlockingError::Panicked(panic_message(&*p)));
let waker = {
    let mut slot = lock(&self.slot);
    let waker = slot.1.take();
    if waker.is_some() {
        slot.0 = Some(result);
    }
    waker
};
if let Some(waker) = waker {
    waker.wake();
}
