//! (written blind) The worker gives up its `acquire` at every tick and asks again, which avoids the futurelock but sends it to the back of the line each time, so the permit no longer goes to the workers in the order they asked.
//? if every round asks anew, does the permit still go to the workers in the order they first asked?
let mut ticks = 0u32;
let permit = loop {
    // A fresh `acquire` each round: nothing of ours is left waiting in line during the tick.
    match board.handle.timeout(tick, board.lock.acquire()).await {
        Ok(permit) => break permit,
        Err(_) => ticks += 1,
    }
};
board.write(&permit, format!("{who}: waited {ticks} ticks"));
board.work(who, work, permit).await;
