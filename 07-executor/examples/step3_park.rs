//! Step 3 of chapter 8: a `block_on` that sleeps until the future's waker
//! is called. The same `Delay` as step 2, and the CPU drops to nothing.
//!
//! `cargo run -p executor --example step3_park`

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::Duration;

#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/delay.rs"]
mod delay;

use delay::Delay;

// ANCHOR: block_on
/// A waker that unparks the thread blocked in [`block_on`]. A waker may be
/// called from any thread (here, the `Delay`'s), which is why `Wake` asks
/// for `Send + Sync`: a `Thread` handle is both.
struct Unparker(Thread);

impl Wake for Unparker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` to the end on this thread, sleeping between polls until
/// its waker is called. Returns its output and how many polls that took.
pub fn block_on<F: Future>(future: F) -> (F::Output, u64) {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unparker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut polls = 0;
    loop {
        polls += 1;
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return (output, polls);
        }
        // Sleep until `unpark`. A wake that came already (during the poll)
        // left a token, and `park` returns at once: no wake is lost. `park`
        // may also return for no reason; then the future is polled, says
        // `Pending` again, and we park again.
        thread::park();
    }
}
// ANCHOR_END: block_on

fn main() {
    let ((), polls) = cpu::measured("parking on a 200 ms Delay", || {
        block_on(Delay::new(Duration::from_millis(200)))
    });
    println!("{polls} polls: the first, and the one the waker asked for");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delay_woken_from_its_thread_takes_a_few_polls_not_millions() {
        let ((), polls) = block_on(Delay::new(Duration::from_millis(5)));
        // Two, unless `park` returned spuriously.
        assert!((2..10).contains(&polls), "{polls} polls");
    }

    #[test]
    fn a_wake_during_the_poll_is_not_lost() {
        // Wakes itself while being polled, before the loop parks: the
        // token `unpark` leaves makes the next `park` return at once.
        let mut woke = false;
        let future = std::future::poll_fn(move |cx| {
            if woke {
                return Poll::Ready("done");
            }
            woke = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        });
        assert_eq!(block_on(future), ("done", 2));
    }
}
