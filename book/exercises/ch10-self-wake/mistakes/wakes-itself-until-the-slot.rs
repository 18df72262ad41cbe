//! Reserves the slot once, then wakes its own task before every `Pending` until the clock reaches it: right answers, and a task polled nonstop, a loop that never sleeps, for the whole wait.
//? between the reservation and the slot, how many times is your task polled, and does the loop ever sleep?
let limiter = this.limiter;
let sleep = this
    .sleep
    .get_or_insert_with(|| limiter.handle.sleep_until(limiter.reserve(Instant::now())));
if Instant::now() >= sleep.deadline() {
    return Poll::Ready(sleep.deadline());
}
cx.waker().wake_by_ref();
Poll::Pending
