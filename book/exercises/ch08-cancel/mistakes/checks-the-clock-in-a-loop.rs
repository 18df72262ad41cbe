//! Keeps the time limit by hand, polling the request and looking at the clock, and wakes itself so as to look again: the task spins until the answer or the limit comes, where a timer would let it sleep.
//? while the request waits for its answer, what wakes your task, and how often does it run before the limit?
let deadline = std::time::Instant::now() + limit;
let outcome = {
    let mut req = std::pin::pin!(request(&mut conn, item, Phases::One));
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(outcome) = req.as_mut().poll(cx) {
            return std::task::Poll::Ready(outcome);
        }
        if std::time::Instant::now() >= deadline {
            return std::task::Poll::Ready(Err(Failure::new(ErrorKind::Timeout, "no answer in time")));
        }
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
    .await
};
if conn.is_reusable() {
    self.conn = Some(conn);
}
outcome
