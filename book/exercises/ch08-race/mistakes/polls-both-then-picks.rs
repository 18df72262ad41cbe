//! (written blind) Polls both futures before choosing, so on a tie the loser `b` has been polled (and made progress, e.g. sent its request) although `a` was already ready.
//? on a tie, what has the losing `b` already done by the time your code picks `a`?
let left = a.as_mut().poll(cx);
let right = b.as_mut().poll(cx);
match (left, right) {
    (Poll::Ready(output), _) => Poll::Ready(Either::Left(output)),
    (Poll::Pending, Poll::Ready(output)) => Poll::Ready(Either::Right(output)),
    (Poll::Pending, Poll::Pending) => Poll::Pending,
}
