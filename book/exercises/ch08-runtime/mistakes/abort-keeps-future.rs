//! (written blind) Abort only records Cancelled and wakes the joiner; the task's future stays in its RefCell and in the runtime's map, so its destructor (and whatever it holds: sockets, sleeps) runs only when the runtime is dropped, not at once as abort promises.
//? after `abort` returns, when is the task's future dropped and the sockets and sleeps it holds released?
// region: 11
// `end` records the outcome the first time only, so an ended task is left
// alone, and the loop never polls a task that has ended.
self.task.end(Joined::Cancelled);
