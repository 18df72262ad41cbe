//! Dropping the runtime clears the map of tasks and stops there: every pending future still holds a Spawner, so the Rc circle (runtime, task, future, runtime) keeps them alive, and their destructors never run.
// region: 3
self.inner.tasks.borrow_mut().clear();
