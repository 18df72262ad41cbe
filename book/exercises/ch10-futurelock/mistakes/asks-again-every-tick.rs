//! Drops its `acquire` at every tick, reports, and asks again: no futurelock, but each tick sends the worker to the back of the line, and the permit no longer goes to the one that asked first.
//? after a tick and a report, is the worker still where it stood in line, or at the back of it?
loop {
    match board.handle.timeout(tick, board.lock.acquire()).await {
        Ok(permit) => return board.work(who, work, permit).await,
        Err(_) => board.report(who).await,
    }
}
