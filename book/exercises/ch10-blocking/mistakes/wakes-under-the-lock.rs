//! Calls the waker while still holding the slot's lock: a waker is foreign code, and one that polls the task at once (or a task woken on another thread that looks straight away) finds the slot locked.
//? what is still locked when you call the waker, and what if that waker polls the task at once?
let result =
    catch_unwind(AssertUnwindSafe(work)).map_err(|p| BlockingError::Panicked(panic_message(&*p)));
let mut slot = lock(&self.slot);
slot.0 = Some(result);
if let Some(waker) = slot.1.take() {
    waker.wake();
}
