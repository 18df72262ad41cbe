//! A spinning sleep: instead of a timer, it wakes itself and returns Pending until its deadline has passed, so its task is polled again and again, every turn, and the loop never sleeps.
//? while a sleep waits for its deadline, how often is its task polled, and can the loop ever go to sleep?
// region: 13
if Instant::now() >= self.deadline {
    return Poll::Ready(());
}
cx.waker().wake_by_ref();
Poll::Pending
