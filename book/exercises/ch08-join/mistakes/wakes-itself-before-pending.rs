//! Wakes its own task before returning Pending, to be sure the other future gets polled: the executor polls the join again at once, over and over, and the task spins through the wait instead of sleeping until one of the two wakes it.
//? when you return `Pending`, who has already promised to wake the join, and why would it wake itself too?
if a_output.is_none()
    && let Poll::Ready(output) = a.as_mut().poll(cx)
{
    a_output = Some(output);
}
if b_output.is_none()
    && let Poll::Ready(output) = b.as_mut().poll(cx)
{
    b_output = Some(output);
}
match (a_output.take(), b_output.take()) {
    (Some(a), Some(b)) => Poll::Ready((a, b)),
    (a, b) => {
        (a_output, b_output) = (a, b);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
