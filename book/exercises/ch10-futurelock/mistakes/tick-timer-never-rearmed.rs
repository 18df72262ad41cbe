//! (written blind) The worker races its `acquire` against one tick timer made before the loop and never made anew, so after the first tick the finished timer is polled again and again: it either counts ticks in a busy loop that spins the CPU or never ticks again, and the count is wrong.
//? after the first tick has fired, what does polling that same finished timer again tell you?
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;

let mut acquire = board.lock.acquire();
let mut next_tick = board.handle.sleep(tick);
let mut ticks = 0u32;
let permit = loop {
    let got = poll_fn(|cx| {
        if let Poll::Ready(permit) = Pin::new(&mut acquire).poll(cx) {
            return Poll::Ready(Some(permit));
        }
        if Pin::new(&mut next_tick).poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Poll::Pending
    })
    .await;
    match got {
        Some(permit) => break permit,
        None => ticks += 1,
    }
};
board.write(&permit, format!("{who}: waited {ticks} ticks"));
board.work(who, work, permit).await;
