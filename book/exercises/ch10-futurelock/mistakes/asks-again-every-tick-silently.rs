//! Counts the ticks without awaiting anything, but asks for a new permit at each one (`timeout` given a fresh `acquire` each time): the old one leaves the line when it is dropped, and the worker goes to the back of it at every tick.
//? when the `acquire` you hand to `timeout` is dropped at a tick, what happens to your place in line?
let mut ticks = 0;
let permit = loop {
    match board.handle.timeout(tick, board.lock.acquire()).await {
        Ok(permit) => break permit,
        Err(_) => ticks += 1,
    }
};
board.write(&permit, format!("{who}: waited {ticks} ticks"));
board.work(who, work, permit).await;
