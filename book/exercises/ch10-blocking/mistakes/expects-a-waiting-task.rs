//! Assumes a task always waits by the time the work is done (`expect` on the waker): when the `Blocking` was never polled, or was dropped, the worker's thread panics.
//? what does the worker do if the `Blocking` was never polled, or was dropped, by the time the work is done?
let result =
    catch_unwind(AssertUnwindSafe(work)).map_err(|p| BlockingError::Panicked(panic_message(&*p)));
let waker = {
    let mut slot = lock(&self.slot);
    slot.0 = Some(result);
    slot.1.take().expect("a task waits for this result")
};
waker.wake();
