//! Dropping the runtime clears the map of tasks and stops there: every pending future still holds a Spawner, so the Rc circle (runtime, task, future, runtime) keeps them alive, and their destructors never run.
//? once the map is empty, does anything still keep a pending future alive through its `Spawner`?
// region: 3
self.inner.tasks.borrow_mut().clear();
