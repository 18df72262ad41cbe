//! Reserves a slot on every poll instead of once: each time its timer fires, the caller takes the next slot again and waits one more interval, for ever, and pushes every later caller back.
//? each time the timer fires and you are polled again, does your caller's slot stay put or move one interval on?
let limiter = this.limiter;
let slot = limiter.reserve(Instant::now());
let sleep = this.sleep.insert(limiter.handle.sleep_until(slot));
match Pin::new(&mut *sleep).poll(cx) {
    Poll::Ready(()) => Poll::Ready(slot),
    Poll::Pending => Poll::Pending,
}
