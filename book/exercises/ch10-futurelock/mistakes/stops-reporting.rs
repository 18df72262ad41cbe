//! Leaves the report out: no futurelock, and no word of the wait either, which the worker was asked to give.
let permit = board.lock.acquire().await;
board.work(who, work, permit).await;
