//! (written blind) The yield wakes its own waker at once, so the task goes straight back into the ready queue ahead of sockets and timers that became ready meanwhile: a hundred yielding tasks starve I/O and timers (stage 7).
//? with a hundred tasks yielding in turn, when does the loop get to look at sockets and timers?
// region: 15
if self.yielded {
    return Poll::Ready(());
}
self.yielded = true;
// Let the others go first: back to the end of the ready queue.
cx.waker().wake_by_ref();
Poll::Pending
