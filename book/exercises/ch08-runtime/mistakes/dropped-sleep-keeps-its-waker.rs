//! A dropped sleep leaves its waker in the map: when its deadline comes, the timer wakes a task that stopped waiting for it (a spurious poll; a task that is waiting for something else is polled for nothing).
//? when a sleep is dropped before its deadline, what does its timer wake once the deadline comes?
// region: 14
let _ = self.id;
