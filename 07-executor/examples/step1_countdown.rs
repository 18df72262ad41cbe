//! Step 1 of chapter 8: a future written by hand, and polled by hand.
//!
//! `cargo run -p executor --example step1_countdown`
//!
//! A future is any type with a `poll` method. Nothing runs it but the
//! caller: here `main` calls `poll` itself, in a loop, and prints what each
//! call returned.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

// ANCHOR: countdown
/// A future that is ready after it has been polled `n` times more: the
/// smallest future that is not ready at once.
///
/// The contract of `poll`, which every future keeps:
///
/// - it returns at once: `Ready(output)` when the work is done, `Pending`
///   when it cannot go on yet. It never blocks the thread;
/// - `Pending` is a promise: the future has arranged for `cx.waker()` to
///   be called when polling again can make progress. A future that returns
///   `Pending` and arranges nothing is never polled again;
/// - `Ready` comes once. Polling after it is a bug of the caller, and the
///   future may do anything but undefined behaviour: panic, return
///   `Pending` forever. This one panics, to be found.
pub struct Countdown {
    left: u32,
    done: bool,
}

impl Countdown {
    /// Ready after `n` polls that return `Pending`.
    pub fn new(n: u32) -> Countdown {
        Countdown {
            left: n,
            done: false,
        }
    }
}

impl Future for Countdown {
    type Output = &'static str;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<&'static str> {
        // Two plain fields: a `Countdown` may move freely (it is `Unpin`),
        // so the pin can be taken off. Step 5 says what a pin is for.
        let this = self.get_mut();
        assert!(!this.done, "a Countdown polled after it returned Ready");
        if this.left == 0 {
            this.done = true;
            return Poll::Ready("liftoff");
        }
        this.left -= 1;
        // Nothing outside will ever make progress for us, so we keep the
        // promise ourselves: "poll me again, at once".
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
// ANCHOR_END: countdown

// ANCHOR: main
fn main() {
    // A waker that does nothing: this `main` polls again anyway.
    let mut cx = Context::from_waker(Waker::noop());
    let mut countdown = Countdown::new(3);
    for poll in 1.. {
        // `Pin::new` works because `Countdown` is `Unpin` (step 5).
        match Pin::new(&mut countdown).poll(&mut cx) {
            Poll::Pending => println!(
                "poll {poll}: Pending ({} more before Ready)",
                countdown.left
            ),
            Poll::Ready(output) => {
                println!("poll {poll}: Ready({output:?})");
                break;
            }
        }
    }
    println!("a fifth poll would panic: the future has returned Ready once, and that is all");
}
// ANCHOR_END: main

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use super::*;

    /// A waker that counts its wakes.
    struct Counter(AtomicUsize);

    impl Wake for Counter {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn it_returns_ready_exactly_once_after_n_pendings_each_with_a_wake() {
        let counter = Arc::new(Counter(AtomicUsize::new(0)));
        let waker = Waker::from(counter.clone());
        let mut cx = Context::from_waker(&waker);
        let mut countdown = Countdown::new(3);
        let polls: Vec<Poll<&str>> = (0..4)
            .map(|_| Pin::new(&mut countdown).poll(&mut cx))
            .collect();
        assert_eq!(
            polls,
            [
                Poll::Pending,
                Poll::Pending,
                Poll::Pending,
                Poll::Ready("liftoff")
            ]
        );
        // Every `Pending` kept its promise: one wake each.
        assert_eq!(counter.0.load(Ordering::Relaxed), 3);
    }

    #[test]
    #[should_panic(expected = "polled after it returned Ready")]
    fn polling_it_after_ready_panics() {
        let mut cx = Context::from_waker(Waker::noop());
        let mut countdown = Countdown::new(0);
        assert_eq!(
            Pin::new(&mut countdown).poll(&mut cx),
            Poll::Ready("liftoff")
        );
        let _ = Pin::new(&mut countdown).poll(&mut cx);
    }
}
