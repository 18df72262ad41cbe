//! (written blind) After a Pending poll the loop always puts the future back into its task, even when the task aborted itself during that poll, so the aborted future is kept (its destructor does not run at once, and never at all if it holds its own handle) instead of being dropped.
//? if a task aborts itself during its poll and then returns `Pending`, where does its future end up?
// region: 8
let Some(task) = self.tasks.borrow().get(&id).cloned() else {
    return; // ended and removed: a late wake
};
// Take the future out, so that the task may spawn, abort or wake while it runs.
let Some(mut future) = task.future.borrow_mut().take() else {
    return;
};
let mut cx = Context::from_waker(&task.waker);
let polled = catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx)));
match polled {
    Ok(Poll::Pending) => {
        // Not done: back in its slot for the next wake.
        *task.future.borrow_mut() = Some(future);
    }
    Ok(Poll::Ready(())) => {
        drop(future);
        self.tasks.borrow_mut().remove(&id);
        task.end(Joined::Finished);
    }
    Err(_) => {
        drop(future);
        self.tasks.borrow_mut().remove(&id);
        task.end(Joined::Panicked);
    }
}
