//! Returns Pending as soon as `a` is pending, without polling `b`: `b` never starts and registers no waker, so it cannot win however quick it is.
//? while `a` is pending, how could a quick `b` ever get the chance to win?
match a.as_mut().poll(cx) {
    Poll::Ready(output) => Poll::Ready(Either::Left(output)),
    Poll::Pending => Poll::Pending,
}
