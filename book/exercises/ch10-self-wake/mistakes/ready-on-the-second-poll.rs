//! Takes any poll after the first for the timer's wake and returns `Ready` without asking the `Sleep`: a task is polled for other reasons too (another future of the same task, a `race`, a spurious wake), and the caller goes through before its slot.
//? is every poll after the first a sign the timer fired, or can the task be polled for other reasons too?
let limiter = this.limiter;
if let Some(sleep) = &this.sleep {
    return Poll::Ready(sleep.deadline());
}
let sleep = this
    .sleep
    .insert(limiter.handle.sleep_until(limiter.reserve(Instant::now())));
match Pin::new(&mut *sleep).poll(cx) {
    Poll::Ready(()) => Poll::Ready(sleep.deadline()),
    Poll::Pending => Poll::Pending,
}
