//! Returns `Pending` when the event is not set without leaving any waker, trusting the task to be polled again: nothing ever wakes it, and 07's loop reports the task stuck.
//? when you return `Pending` with the event unset, how will `set` find your task?
// region: 2
if state.set {
    this.id = None;
    return Poll::Ready(());
}
Poll::Pending
