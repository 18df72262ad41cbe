//! Polls its place in line itself and counts the ticks by the clock, waking its own task before every `Pending` so as not to miss a tick: the count is right, and the worker spins for its whole wait.
//? between two ticks, how often is the worker polled, and what wakes it each time?
let mut acquire = board.lock.acquire();
let (started, mut ticks) = (std::time::Instant::now(), 0);
let permit = std::future::poll_fn(|cx| {
    if let std::task::Poll::Ready(permit) = std::pin::Pin::new(&mut acquire).poll(cx) {
        return std::task::Poll::Ready(permit);
    }
    ticks = u32::try_from(started.elapsed().as_nanos() / tick.as_nanos()).unwrap_or(u32::MAX);
    cx.waker().wake_by_ref();
    std::task::Poll::Pending
})
.await;
board.write(&permit, format!("{who}: waited {ticks} ticks"));
board.work(who, work, permit).await;
