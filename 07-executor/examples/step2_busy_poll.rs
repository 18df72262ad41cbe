//! Step 2 of chapter 8: the simplest `block_on`, which polls until the
//! future is ready and never sleeps. It works, and it burns a whole core.
//!
//! `cargo run -p executor --example step2_busy_poll`

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/delay.rs"]
mod delay;

use delay::Delay;

// ANCHOR: block_on
/// Runs `future` to the end on this thread: polls it, and if it is not
/// ready, polls it again, at once, forever. Returns its output and how many
/// polls that took.
///
/// The waker does nothing, so every promise a `Pending` made is thrown
/// away; it does not matter, because this loop never waits for one.
pub fn block_on<F: Future>(future: F) -> (F::Output, u64) {
    // `poll` takes the future pinned: it must not move any more (step 5
    // says why). `pin!` pins it where it is, on this stack frame.
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    let mut polls = 0;
    loop {
        polls += 1;
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return (output, polls);
        }
    }
}
// ANCHOR_END: block_on

fn main() {
    let ((), polls) = cpu::measured("busy-polling a 200 ms Delay", || {
        block_on(Delay::new(Duration::from_millis(200)))
    });
    println!("{polls} polls, every one of them but the last for nothing");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ready_future_takes_one_poll() {
        assert_eq!(block_on(async { 7 }), (7, 1));
    }

    #[test]
    fn a_delay_is_polled_until_its_deadline() {
        let started = std::time::Instant::now();
        let ((), polls) = block_on(Delay::new(Duration::from_millis(5)));
        assert!(started.elapsed() >= Duration::from_millis(5));
        // Nothing told the loop to wait: it polled again and again.
        assert!(polls > 1, "{polls} polls");
    }
}
