//! (written blind) The worker keeps its place in line but only looks at its `acquire` once per tick and sleeps in between, so a permit handed to it mid-tick sits unused until the tick ends (the run slows by up to a tick per hand-over) and the count includes the partial tick.
//? if the permit is handed to the worker mid-tick, when does your worker notice it has it?
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;

let mut acquire = board.lock.acquire();
let mut ticks = 0u32;
let permit = loop {
    // One look: is the permit ours yet?
    let looked = poll_fn(|cx| Poll::Ready(Pin::new(&mut acquire).poll(cx))).await;
    if let Poll::Ready(permit) = looked {
        break permit;
    }
    board.handle.sleep(tick).await;
    ticks += 1;
};
board.write(&permit, format!("{who}: waited {ticks} ticks"));
board.work(who, work, permit).await;
