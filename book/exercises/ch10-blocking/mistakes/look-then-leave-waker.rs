//! (written blind) The poll looks for the result under one lock and leaves its waker under a second one, so a result delivered between the two finds no waker to wake and the task returns `Pending` with nobody left to wake it.
//? between the lock where you look for the result and the lock where you leave the waker, what can the worker do?
// region: 2
let result = lock(&self.slot).0.take();
if let Some(result) = result {
    return Poll::Ready(result);
}
// Not there yet: leave a waker for the worker.
lock(&self.slot).1 = Some(cx.waker().clone());
Poll::Pending
