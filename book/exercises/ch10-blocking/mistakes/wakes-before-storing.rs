//! Wakes the task first and stores the result after: the woken task may look in the slot before the result is in, find nothing, and wait for a wake that has already happened.
//? at the moment the waker fires, is the result already in the slot for the task to find?
let result =
    catch_unwind(AssertUnwindSafe(work)).map_err(|p| BlockingError::Panicked(panic_message(&*p)));
let waker = lock(&self.slot).1.take();
if let Some(waker) = waker {
    waker.wake();
}
lock(&self.slot).0 = Some(result);
