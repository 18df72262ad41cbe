//! Reserves the slot but sleeps one interval from now rather than until the slot: a caller whose slot is at once still waits a whole interval.
//? for a caller whose slot is right now, how long does your future make it wait?
let limiter = this.limiter;
if this.sleep.is_none() {
    let _slot = limiter.reserve(Instant::now());
    this.sleep = Some(limiter.handle.sleep(limiter.interval));
}
let sleep = this.sleep.as_mut().expect("made above");
match Pin::new(&mut *sleep).poll(cx) {
    Poll::Ready(()) => Poll::Ready(sleep.deadline()),
    Poll::Pending => Poll::Pending,
}
