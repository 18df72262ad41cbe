//! (written blind) Polls `b` with a no-op waker, so when `b` becomes ready while `a` is still pending nobody wakes the task: `b`'s win is only noticed when `a` next wakes it (or never).
//? when `b` becomes ready while `a` is still pending, what wakes the task to notice it?
if let Poll::Ready(output) = a.as_mut().poll(cx) {
    return Poll::Ready(Either::Left(output));
}
let mut quiet = std::task::Context::from_waker(std::task::Waker::noop());
if let Poll::Ready(output) = b.as_mut().poll(&mut quiet) {
    return Poll::Ready(Either::Right(output));
}
Poll::Pending
