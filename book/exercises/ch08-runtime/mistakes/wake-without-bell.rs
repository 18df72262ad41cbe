//! (written blind) The waker only queues the id and never rings the bell, so a wake from another thread while the loop sleeps in the selector is seen by nobody until some unrelated socket or timer ends the wait (stage 5).
//? a wake from another thread only touches the queue: how does a loop blocked in the selector's `wait` find out?
// region: 9
let mut ids = lock(&self.ready.ids);
if !ids.contains(&self.id) {
    // The loop drains this queue on every turn, so it will find us there.
    ids.push_back(self.id);
}
