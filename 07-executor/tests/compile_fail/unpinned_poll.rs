//! Does not compile, on purpose: chapter 8 shows the error `Pin::new` gives for an async fn that borrows across an `.await`.
// ANCHOR: unpinned
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Waker};

async fn sum_after_a_yield() -> u32 {
    let numbers = [1, 2, 3];
    let first = &numbers[0];
    std::future::ready(()).await;
    *first + numbers[2]
}

fn main() {
    let mut future = sum_after_a_yield();
    let mut cx = Context::from_waker(Waker::noop());
    // `Pin::new` pins only what may move anyway (`Unpin`): refused.
    let _ = Pin::new(&mut future).poll(&mut cx);
}
// ANCHOR_END: unpinned
