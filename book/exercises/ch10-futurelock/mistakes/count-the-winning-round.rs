//! (written blind) The worker keeps its place in line correctly but counts a tick at the top of every round, including the round in which the permit comes, so every count is one too many ("waited 1 ticks" for a free permit).
//? when the permit is free at once, how many ticks has the worker really waited, and what does it write?
let mut acquire = board.lock.acquire();
let mut ticks = 0u32;
let permit = loop {
    ticks += 1;
    if let Ok(permit) = board.handle.timeout(tick, &mut acquire).await {
        break permit;
    }
};
board.write(&permit, format!("{who}: waited {ticks} ticks"));
board.work(who, work, permit).await;
