//! Polls both futures on every wake-up, even one that has already returned Ready: a finished future must not be polled again (a JoinHandle panics).
//? after a future has returned `Ready`, what happens when the join polls it again on the next wake-up?
if let Poll::Ready(output) = a.as_mut().poll(cx) {
    a_output = Some(output);
}
if let Poll::Ready(output) = b.as_mut().poll(cx) {
    b_output = Some(output);
}
match (a_output.take(), b_output.take()) {
    (Some(a), Some(b)) => Poll::Ready((a, b)),
    (a, b) => {
        (a_output, b_output) = (a, b);
        Poll::Pending
    }
}
