//! (written blind) The worker races its `acquire` against a tick timer and makes a new timer after each tick but does not poll it, so the new timer never learns of the task, no later tick wakes it, and the count stops at 1 however long the wait.
//? a timer that is made but not yet polled: has it got a waker to call when it fires?
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;

let mut acquire = board.lock.acquire();
let mut next_tick = board.handle.sleep(tick);
let mut ticks = 0u32;
let permit = poll_fn(|cx| {
    if let Poll::Ready(permit) = Pin::new(&mut acquire).poll(cx) {
        return Poll::Ready(permit);
    }
    if Pin::new(&mut next_tick).poll(cx).is_ready() {
        ticks += 1;
        // Arm the next tick.
        next_tick = board.handle.sleep(tick);
    }
    Poll::Pending
})
.await;
board.write(&permit, format!("{who}: waited {ticks} ticks"));
board.work(who, work, permit).await;
