//! Leaves the report out: no futurelock, and no word of the wait either, which the worker was asked to give.
//? what was the worker asked to say about its wait, and where does your code say it?
let permit = board.lock.acquire().await;
board.work(who, work, permit).await;
