//! A lost wake-up: the waker queues the task but does not ring the bell, so a wake from another thread while the loop sleeps in the selector (with nothing else to wait for) never reaches it, and the task sleeps for ever.
//? when another thread wakes a task while the loop sleeps in the selector, what ends that sleep?
// region: 9
lock(&self.ready.ids).push_back(self.id);
