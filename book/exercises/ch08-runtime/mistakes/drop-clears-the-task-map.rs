//! (written blind) Drop only clears the task map, and with its borrow held: a task whose JoinHandle is still alive (held by the caller, or by its own future) keeps its future and so never runs its destructor, and a destructor that spawns or aborts panics on the RefCell.
//? after the task map is emptied, who still holds each pending future, and what if a destructor spawns?
// region: 3
// The map holds the tasks, the tasks hold the futures, the futures hold
// the Spawners: emptying the map breaks the circle.
self.inner.tasks.borrow_mut().clear();
