//! Waits inside `poll` until the result is there, asking again and again, instead of returning `Pending`: the loop's thread is held for as long as the work runs, and every other task and timer waits behind it, the very thing the thread was for.
//? while `work` runs, what else can the loop's thread do if `poll` does not return?
// region: 2
loop {
    if let Some(result) = lock(&self.slot).0.take() {
        return Poll::Ready(result);
    }
    std::thread::yield_now();
}
