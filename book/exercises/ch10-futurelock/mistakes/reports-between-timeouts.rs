//! The crate's first version: keeps `acquire` across a `timeout` and awaits the report when the tick comes; the report queues behind the worker's own, unpolled, `acquire`, the permit is handed to that one, and every worker stops (futurelock).
//? while `report` is awaited, who polls the `acquire` that holds your place, and what if the permit goes to it?
let mut acquire = board.lock.acquire();
loop {
    match board.handle.timeout(tick, &mut acquire).await {
        Ok(permit) => return board.work(who, work, permit).await,
        Err(_) => board.report(who).await,
    }
}
