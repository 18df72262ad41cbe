//! Returns Pending as soon as `a` is pending, without polling `b`: `b` never starts and registers no waker, so it cannot win however quick it is.
match a.as_mut().poll(cx) {
    Poll::Ready(output) => Poll::Ready(Either::Left(output)),
    Poll::Pending => Poll::Pending,
}
