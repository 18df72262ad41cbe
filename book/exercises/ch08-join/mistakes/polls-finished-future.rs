//! (written blind) Polls both futures on every wake-up, even one that already returned Ready, which panics for a JoinHandle (and overwrites the kept output for others).
//? does your join remember which future already returned `Ready` before it polls both again?
if let Poll::Ready(output) = a.as_mut().poll(cx) {
    a_output = Some(output);
}
if let Poll::Ready(output) = b.as_mut().poll(cx) {
    b_output = Some(output);
}
if a_output.is_some() && b_output.is_some() {
    Poll::Ready((a_output.take().unwrap(), b_output.take().unwrap()))
} else {
    Poll::Pending
}
