//! Replaces the kept waker when it *would* wake the same task, and keeps it when it would not (the test of `will_wake` the wrong way round): a `Wait` that moved to another task keeps the old task's waker.
//? what does `will_wake` answer when the new waker is for the same task, and when do you swap the kept one?
// region: 2
if state.set {
    this.id = None;
    return Poll::Ready(());
}
let id = match this.id {
    Some(id) => id,
    None => {
        let id = state.next_id;
        state.next_id += 1;
        this.id = Some(id);
        id
    }
};
match state.waiting.iter_mut().find(|(waiter, _)| *waiter == id) {
    Some((_, waker)) => {
        if waker.will_wake(cx.waker()) {
            *waker = cx.waker().clone();
        }
    }
    None => state.waiting.push((id, cx.waker().clone())),
}
Poll::Pending
