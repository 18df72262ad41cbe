//! The ready queue polls a finished task: the future goes back in its slot whatever the poll said, and the task stays in the map, so a wake that comes after it finished polls it again (an `async fn` panics then, another future may do anything).
//? a task that already returned `Ready` is woken once more: what does your loop poll then?
// region: 8
let Some(task) = self.tasks.borrow().get(&id).cloned() else {
    return;
};
let Some(mut future) = task.future.take() else {
    return;
};
let polled = catch_unwind(AssertUnwindSafe(|| {
    future.as_mut().poll(&mut Context::from_waker(&task.waker))
}));
*task.future.borrow_mut() = Some(future);
match polled {
    Ok(Poll::Pending) => {}
    Ok(Poll::Ready(())) => task.end(Joined::Finished),
    Err(_) => task.end(Joined::Panicked),
}
