//! Polls both futures before looking at either: `b` runs even when `a` is already ready, and its work is thrown away when `a` wins.
//? when `a` is ready on this poll, why does `b` get polled at all before you return?
let a = a.as_mut().poll(cx);
let b = b.as_mut().poll(cx);
match (a, b) {
    (Poll::Ready(output), _) => Poll::Ready(Either::Left(output)),
    (_, Poll::Ready(output)) => Poll::Ready(Either::Right(output)),
    _ => Poll::Pending,
}
