//! (written blind) The poll sleeps correctly but, when the timer fires, reads its slot back from the limiter as `next - interval`, which is the slot of whoever reserved last, so with several callers waiting it reports another caller's (later) slot.
//? with several callers waiting, whose slot does `next - interval` describe when your timer fires?
if this.sleep.is_none() {
    let now = Instant::now();
    let slot = this.limiter.reserve(now);
    this.sleep = Some(this.limiter.handle.sleep(slot.saturating_duration_since(now)));
}
let sleep = this.sleep.as_mut().expect("the timer was made above");
match Pin::new(sleep).poll(cx) {
    Poll::Ready(_) => {
        // `reserve` moved `next` one interval past our slot.
        let next = this.limiter.next.get().expect("a slot was reserved");
        Poll::Ready(next - this.limiter.interval)
    }
    Poll::Pending => Poll::Pending,
}
