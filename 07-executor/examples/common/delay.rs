//! [`Delay`]: a future that is ready at a deadline, with a thread of its
//! own to keep the promise of `Pending`. Steps 2 and 3 block on it.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

// ANCHOR: delay
/// Ready `duration` after it was made.
///
/// Before its first `Pending`, it starts a thread that sleeps until the
/// deadline and then calls the waker: that is how this future keeps the
/// promise `Pending` makes. (A thread per timer is wasteful; the executor
/// of step 4 keeps every deadline in one heap and sleeps until the
/// earliest.)
pub struct Delay {
    deadline: Instant,
    /// The waker the thread will call, shared with it: a later poll may
    /// come with another waker, and the thread must call the latest one.
    waker: Option<Arc<Mutex<Waker>>>,
}

impl Delay {
    /// A future ready `duration` from now.
    pub fn new(duration: Duration) -> Delay {
        Delay {
            deadline: Instant::now() + duration,
            waker: None,
        }
    }
}

impl Future for Delay {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        if Instant::now() >= this.deadline {
            return Poll::Ready(());
        }
        match &this.waker {
            // Polled again: the thread is running; keep its waker current.
            Some(shared) => {
                let mut waker = shared.lock().expect("no thread panics holding it");
                if !waker.will_wake(cx.waker()) {
                    waker.clone_from(cx.waker());
                }
            }
            None => {
                let shared = Arc::new(Mutex::new(cx.waker().clone()));
                this.waker = Some(shared.clone());
                let deadline = this.deadline;
                std::thread::spawn(move || {
                    std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
                    shared
                        .lock()
                        .expect("no thread panics holding it")
                        .wake_by_ref();
                });
            }
        }
        Poll::Pending
    }
}
// ANCHOR_END: delay
