//! Returns `Pending` on the first poll whatever the slot holds, to register the waker first: work that was already done has already found no waker, and nobody will wake the task again.
//? on the first poll, if the result is already in the slot, who will wake the task after your `Pending`?
// region: 2
let mut slot = lock(&self.slot);
if slot.1.is_some()
    && let Some(result) = slot.0.take()
{
    return Poll::Ready(result);
}
slot.1 = Some(cx.waker().clone());
Poll::Pending
