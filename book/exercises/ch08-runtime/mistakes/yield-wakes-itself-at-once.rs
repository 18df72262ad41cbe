//! A yield that wakes itself at once: the task goes back in the ready queue ahead of the reader whose socket became readable meanwhile, because the loop looks at I/O only after the queue.
//? when a yield queues its task again at once, who runs first: it, or a reader whose socket became readable?
// region: 15
if self.yielded {
    return Poll::Ready(());
}
self.yielded = true;
cx.waker().wake_by_ref();
Poll::Pending
