//! (written blind) Polls `b` with a no-op waker (so the task is "only woken once"), so when `b` becomes ready after `a` nothing wakes the task and the join never finishes.
//? when `b` becomes ready after `a`, which waker does it call to get the join polled again?
if a_output.is_none() {
    if let Poll::Ready(output) = a.as_mut().poll(cx) {
        a_output = Some(output);
    }
}
if b_output.is_none() {
    let mut quiet = std::task::Context::from_waker(std::task::Waker::noop());
    if let Poll::Ready(output) = b.as_mut().poll(&mut quiet) {
        b_output = Some(output);
    }
}
if a_output.is_some() && b_output.is_some() {
    Poll::Ready((a_output.take().unwrap(), b_output.take().unwrap()))
} else {
    Poll::Pending
}
