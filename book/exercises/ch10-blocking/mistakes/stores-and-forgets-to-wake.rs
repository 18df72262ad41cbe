//! Stores the result and drops the waker without calling it: the result is there, but the task, which returned `Pending`, is never polled again to see it.
//? the result is in the slot, but what gets the task that returned `Pending` polled again to see it?
let result =
    catch_unwind(AssertUnwindSafe(work)).map_err(|p| BlockingError::Panicked(panic_message(&*p)));
let mut slot = lock(&self.slot);
slot.0 = Some(result);
slot.1 = None;
