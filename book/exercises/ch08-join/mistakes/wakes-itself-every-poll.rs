//! (written blind) Wakes its own task before every Pending "so that nothing is missed", which turns the join into a busy loop that polls both futures nonstop while they wait.
//? how many times is the join polled while both futures wait, if every `Pending` comes with a wake-up?
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
if a_output.is_some() && b_output.is_some() {
    Poll::Ready((a_output.take().unwrap(), b_output.take().unwrap()))
} else {
    cx.waker().wake_by_ref();
    Poll::Pending
}
