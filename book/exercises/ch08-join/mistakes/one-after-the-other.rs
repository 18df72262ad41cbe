//! Polls `b` only once `a` is finished: that is `a.await; b.await` again, and the second request does not even start until the first is answered.
//? is your join any different from `a.await` followed by `b.await`, and when does `b`'s request start?
if a_output.is_none() {
    match a.as_mut().poll(cx) {
        Poll::Ready(output) => a_output = Some(output),
        Poll::Pending => return Poll::Pending,
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
