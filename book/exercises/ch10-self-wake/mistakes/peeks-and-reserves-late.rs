//! Works out its slot from `next` without reserving it, and reserves only when the slot has come: every caller waiting meanwhile computes the same slot, and they all pass together.
//? while callers wait for the slot they worked out, what stops two of them from working out the same one?
let limiter = this.limiter;
let now = Instant::now();
let slot = limiter.next.get().map_or(now, |next| next.max(now));
if now >= slot {
    return Poll::Ready(limiter.reserve(now));
}
let sleep = this.sleep.get_or_insert_with(|| limiter.handle.sleep_until(slot));
match Pin::new(&mut *sleep).poll(cx) {
    Poll::Ready(()) => Poll::Ready(limiter.reserve(Instant::now())),
    Poll::Pending => Poll::Pending,
}
