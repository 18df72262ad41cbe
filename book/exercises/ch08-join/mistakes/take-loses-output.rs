//! (written blind) Takes both kept outputs to test whether both are there, which throws away the one that was ready when the other is not, so the finished future's output is lost and it is polled again after Ready.
//? when `take()` finds only one output, what becomes of it once the match returns `Pending`?
if a_output.is_none() {
    if let Poll::Ready(output) = a.as_mut().poll(cx) {
        a_output = Some(output);
    }
}
if b_output.is_none() {
    if let Poll::Ready(output) = b.as_mut().poll(cx) {
        b_output = Some(output);
    }
}
match (a_output.take(), b_output.take()) {
    (Some(a), Some(b)) => Poll::Ready((a, b)),
    _ => Poll::Pending,
}
