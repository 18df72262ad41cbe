//! Wakes its own task before returning Pending, "so that nothing is missed": the executor polls the race again at once, over and over, and the task spins through the whole wait instead of sleeping until a timer or a socket wakes it.
//? when both futures are pending, who has promised to wake the task, and does it need your wake-up too?
if let Poll::Ready(output) = a.as_mut().poll(cx) {
    return Poll::Ready(Either::Left(output));
}
if let Poll::Ready(output) = b.as_mut().poll(cx) {
    return Poll::Ready(Either::Right(output));
}
cx.waker().wake_by_ref();
Poll::Pending
