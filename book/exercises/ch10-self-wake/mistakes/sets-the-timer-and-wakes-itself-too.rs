//! Sets the timer and, to be safe, wakes its own task too before `Pending`: the timer would have been enough, and the self-wake turns the wait back into a spin.
//? once the `Sleep` holds your waker, what does an extra wake-up before `Pending` add?
let limiter = this.limiter;
let sleep = this
    .sleep
    .get_or_insert_with(|| limiter.handle.sleep_until(limiter.reserve(Instant::now())));
match Pin::new(&mut *sleep).poll(cx) {
    Poll::Ready(()) => Poll::Ready(sleep.deadline()),
    Poll::Pending => {
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
