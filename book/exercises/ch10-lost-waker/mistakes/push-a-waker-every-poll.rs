//! (written blind) The poll pushes its waker on every poll under its id instead of replacing the one it left, so one `Wait` polled ten times holds ten wakers and `set` wakes its task several times.
//? how many times does `set` wake a task whose `Wait` was polled ten times before?
// region: 2
if state.set {
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
// Keep this poll's waker too, so whoever polls us now is woken.
state.waiting.push((id, cx.waker().clone()));
Poll::Pending
