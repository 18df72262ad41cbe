//! Takes both outputs out to look at them and drops them when only one has come: the finished future's output is lost, and it is polled again for it.
//? when only one future has finished, where does its output stay until the other one finishes?
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
    _ => Poll::Pending,
}
