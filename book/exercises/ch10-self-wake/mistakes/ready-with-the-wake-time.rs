//! (written blind) The poll sleeps correctly but, when the timer fires, answers with `Instant::now()` (the time it was woken, a little late) instead of the slot it reserved, so the slot it reports is not the one the limiter promised.
//? when the timer fires, which instant does the caller expect: the moment you woke, or the slot you reserved?
if this.sleep.is_none() {
    let now = Instant::now();
    let slot = this.limiter.reserve(now);
    if slot <= now {
        return Poll::Ready(slot);
    }
    this.sleep = Some(this.limiter.handle.sleep(slot - now));
}
let sleep = this.sleep.as_mut().expect("the timer was made above");
match Pin::new(sleep).poll(cx) {
    // The timer fired: we are at our slot.
    Poll::Ready(_) => Poll::Ready(Instant::now()),
    Poll::Pending => Poll::Pending,
}
