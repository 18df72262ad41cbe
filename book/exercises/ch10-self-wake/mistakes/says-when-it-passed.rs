//! Returns the instant it was let through (`Instant::now()`) instead of its slot: later than the slot by however late the loop was, so the slots it reports are neither its reservation nor an interval apart.
//? how far apart are the instants you report, if each is read when the loop got round to your task?
let limiter = this.limiter;
let sleep = this
    .sleep
    .get_or_insert_with(|| limiter.handle.sleep_until(limiter.reserve(Instant::now())));
match Pin::new(&mut *sleep).poll(cx) {
    Poll::Ready(()) => Poll::Ready(Instant::now()),
    Poll::Pending => Poll::Pending,
}
