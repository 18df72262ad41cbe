//! (written blind) The poll reserves a slot and makes a new timer on every poll, not only the first, so each wake-up reserves the next slot again: slots are wasted and a caller that had to wait never gets through.
//? on the poll after the timer woke you, which slot does your future reserve, and for whom?
let now = Instant::now();
let slot = this.limiter.reserve(now);
if now >= slot {
    return Poll::Ready(slot);
}
// Sleep until the slot; the timer wakes us then.
let mut sleep = this.limiter.handle.sleep(slot - now);
let fired = Pin::new(&mut sleep).poll(cx).is_ready();
this.sleep = Some(sleep);
if fired {
    return Poll::Ready(slot);
}
Poll::Pending
