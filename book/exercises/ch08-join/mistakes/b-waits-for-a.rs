//! (written blind) Returns Pending as soon as `a` is pending without polling `b`, so `b` does not start until `a` is done: the two run one after the other, and a peer that waits for both requests never answers.
//? while `a` is pending, does `b` get polled at all, so that both requests are in flight together?
if a_output.is_none() {
    match a.as_mut().poll(cx) {
        Poll::Ready(output) => a_output = Some(output),
        Poll::Pending => return Poll::Pending,
    }
}
if b_output.is_none() {
    match b.as_mut().poll(cx) {
        Poll::Ready(output) => b_output = Some(output),
        Poll::Pending => return Poll::Pending,
    }
}
Poll::Ready((a_output.take().unwrap(), b_output.take().unwrap()))
