//! (written blind) Alternates which future is polled first on each poll "for fairness" (a static flag), so on a tie every other poll `b` wins although the doc promises `a` on a tie.
//? on a tie, which future does the doc say wins, and does your answer change from one poll to the next?
use std::sync::atomic::{AtomicBool, Ordering};
static B_FIRST: AtomicBool = AtomicBool::new(false);
let b_first = B_FIRST.fetch_xor(true, Ordering::Relaxed);
if b_first {
    if let Poll::Ready(output) = b.as_mut().poll(cx) {
        return Poll::Ready(Either::Right(output));
    }
}
if let Poll::Ready(output) = a.as_mut().poll(cx) {
    return Poll::Ready(Either::Left(output));
}
if let Poll::Ready(output) = b.as_mut().poll(cx) {
    return Poll::Ready(Either::Right(output));
}
Poll::Pending
