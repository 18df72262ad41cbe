//! Returns Pending as soon as one future finishes, meaning to poll the other next time: the other never registered a waker, so nothing wakes the task again.
//? after one future finishes, is the other one polled in that same call, so that it holds a waker to call?
if a_output.is_none() {
    if let Poll::Ready(output) = a.as_mut().poll(cx) {
        a_output = Some(output);
        return Poll::Pending;
    }
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
        Poll::Pending
    }
}
