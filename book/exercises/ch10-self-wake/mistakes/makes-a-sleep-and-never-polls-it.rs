//! Creates the `Sleep` for the slot but returns `Pending` without polling it: a `Sleep` sets its timer, with the task's waker, only when polled, so nothing will ever wake the task.
//? a `Sleep` that is made but never polled: when does it set its timer, and with which waker?
let limiter = this.limiter;
let sleep = this
    .sleep
    .get_or_insert_with(|| limiter.handle.sleep_until(limiter.reserve(Instant::now())));
if Instant::now() >= sleep.deadline() {
    return Poll::Ready(sleep.deadline());
}
Poll::Pending
