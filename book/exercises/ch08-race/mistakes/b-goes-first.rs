//! (written blind) Gives `b` the first chance on each poll, so on a tie `b` wins although the doc promises `a`.
//? when both futures are ready on the same poll, which one does your code return, and which does the doc promise?
if let Poll::Ready(output) = b.as_mut().poll(cx) {
    return Poll::Ready(Either::Right(output));
}
if let Poll::Ready(output) = a.as_mut().poll(cx) {
    return Poll::Ready(Either::Left(output));
}
Poll::Pending
