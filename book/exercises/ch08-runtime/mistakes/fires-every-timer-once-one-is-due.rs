//! A timer heap that fires early: once the soonest timer is due, it wakes every sleep in the heap, so a 30 ms sleep ends with a 10 ms one.
//? when the soonest timer is due, which of the other timers in the heap are due too?
// region: 12
let now = Instant::now();
let first_due = matches!(self.timers.borrow().peek(), Some(Reverse((at, _))) if *at <= now);
if first_due {
    let all = std::mem::take(&mut *self.timers.borrow_mut()).into_sorted_vec();
    for Reverse((_, id)) in all.into_iter().rev() {
        if let Some(waker) = self.sleepers.borrow_mut().remove(&id) {
            waker.wake();
        }
    }
}
