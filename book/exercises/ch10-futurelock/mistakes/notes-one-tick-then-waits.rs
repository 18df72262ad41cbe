//! Waits one tick, and if the permit has not come, notes a single tick and awaits the rest of the wait in one go: no futurelock, but a worker that waited twelve ticks reports one.
//? for a worker that waits twelve ticks, how many does your count see after the first one?
let mut acquire = board.lock.acquire();
let mut ticks = 0;
let permit = match board.handle.timeout(tick, &mut acquire).await {
    Ok(permit) => permit,
    Err(_) => {
        ticks += 1;
        acquire.await
    }
};
board.write(&permit, format!("{who}: waited {ticks} ticks"));
board.work(who, work, permit).await;
