//! Checks every tick whether a permit is free and asks only then, so it holds no place in line while it waits: no futurelock, but whoever looks first when the permit comes back gets it, not whoever asked first.
//? while you sleep until a permit looks free, does anything hold your place in line?
let mut ticks = 0;
while board.lock.available() == 0 {
    board.handle.sleep(tick).await;
    ticks += 1;
}
let permit = board.lock.acquire().await;
board.write(&permit, format!("{who}: waited {ticks} ticks"));
board.work(who, work, permit).await;
