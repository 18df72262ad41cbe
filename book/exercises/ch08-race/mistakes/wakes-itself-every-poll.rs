//! (written blind) Wakes its own task before returning Pending, turning the race into a busy loop that re-polls both futures nonstop while they wait.
//? how often is the race polled during a long wait if every `Pending` comes with a wake-up of its own?
if let Poll::Ready(output) = a.as_mut().poll(cx) {
    return Poll::Ready(Either::Left(output));
}
if let Poll::Ready(output) = b.as_mut().poll(cx) {
    return Poll::Ready(Either::Right(output));
}
cx.waker().wake_by_ref();
Poll::Pending
