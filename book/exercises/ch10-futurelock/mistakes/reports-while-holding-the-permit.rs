//! Counts the ticks, then reports through `Board::report` once it holds the permit: the report asks for the permit the worker already holds, and waits for it for ever.
//? what does `Board::report` wait for, and who already holds it when you call it?
let mut acquire = board.lock.acquire();
let mut ticks = 0;
let permit = loop {
    match board.handle.timeout(tick, &mut acquire).await {
        Ok(permit) => break permit,
        Err(_) => ticks += 1,
    }
};
for _ in 0..ticks {
    board.report(who).await;
}
board.work(who, work, permit).await;
