//! Polls `b` before `a`: a tie then goes to `b`, and `b` is polled (does work, maybe sends a request) even when `a` was ready and wins.
//? if `a` is already ready, does `b` still get polled first and start work that will be thrown away?
if let Poll::Ready(output) = b.as_mut().poll(cx) {
    return Poll::Ready(Either::Right(output));
}
if let Poll::Ready(output) = a.as_mut().poll(cx) {
    return Poll::Ready(Either::Left(output));
}
Poll::Pending
