//! Chapter 10, exercise 3: a wait that sleeps instead of spinning.
//!
//! A [`Limiter`] lets callers through one per `interval`: an API allowed
//! ten calls a second, a log that may not flood. A caller awaits
//! [`Limiter::until_allowed`], which reserves its slot, the first free
//! one, and is ready when the slot comes.
//!
//! The first version of its future looked at the clock on every poll and,
//! if the slot had not come, woke its own task before returning `Pending`
//! ("poll me again soon"):
//!
//! ```text
//! if Instant::now() >= slot { return Poll::Ready(slot) }
//! cx.waker().wake_by_ref();
//! Poll::Pending
//! ```
//!
//! Its answers were right, and its cost was not: in a wait of a fifth of a
//! second its task was polled over a hundred thousand times, the loop
//! never slept, and one waiting caller kept a core busy. A future that
//! waits for a time must hand its waker to the one part of the loop that
//! knows when the time comes, the timer heap, through a
//! [`Sleep`], and be polled again only when the timer
//! fires.
//!
//! # What it promises
//!
//! Slots go to callers in the order of their first poll. The first slot
//! is the instant of that poll; each next one is the later of its
//! caller's first poll and the slot before plus `interval`. A caller is
//! let through at its slot, never before, and [`UntilAllowed`] says which
//! slot it was.
//!
//! [`Limiter::reserve`] hands out the slots; write the poll of
//! [`UntilAllowed`].
//!
//! Three callers, 10 ms apart:
//!
//! ```
//! use std::time::Duration;
//! use ch10_self_wake::Limiter;
//! use executor::Executor;
//!
//! let executor = Executor::new()?;
//! let limiter = Limiter::new(&executor.handle(), Duration::from_millis(10));
//! let slots = executor.block_on(async {
//!     let mut slots = Vec::new();
//!     for _ in 0..3 {
//!         slots.push(limiter.until_allowed().await);
//!     }
//!     slots
//! })?;
//! let apart = Duration::from_millis(10);
//! assert!(slots[1] - slots[0] >= apart, "the second slot an interval after the first");
//! assert!(slots[2] - slots[1] >= apart, "the third an interval after the second");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch10-self-wake");

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use executor::{Handle, Sleep};

#[cfg(test)]
mod tests;

/// Lets callers through one per interval, in the order they ask.
pub struct Limiter {
    handle: Handle,
    interval: Duration,
    /// The earliest the next slot may be; `None` until the first caller.
    next: Cell<Option<Instant>>,
}

/// A future ready at its caller's slot, with that slot. Its slot is
/// reserved at its first poll, once: dropped before, the slot is wasted.
pub struct UntilAllowed<'a> {
    limiter: &'a Limiter,
    /// The timer of its slot, once reserved.
    sleep: Option<Sleep>,
}

impl Limiter {
    /// A limiter that lets one caller through per `interval`.
    pub fn new(handle: &Handle, interval: Duration) -> Limiter {
        Limiter {
            handle: handle.clone(),
            interval,
            next: Cell::new(None),
        }
    }

    /// Waits for a slot; ready with it.
    pub fn until_allowed(&self) -> UntilAllowed<'_> {
        UntilAllowed {
            limiter: self,
            sleep: None,
        }
    }

    /// Reserves the first free slot for a caller asking at `now`: the later
    /// of `now` and the earliest next slot, which moves one interval on.
    pub fn reserve(&self, now: Instant) -> Instant {
        let slot = self.next.get().map_or(now, |next| next.max(now));
        self.next.set(Some(slot + self.interval));
        slot
    }
}

// ANCHOR: exercise
impl Future for UntilAllowed<'_> {
    type Output = Instant;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Instant> {
        // No field is pinned: `UntilAllowed` is `Unpin` (so is `Sleep`).
        let this = self.get_mut();
        // TODO: when is the slot reserved, and who will wake this task when it comes?
        todo!("when is the slot reserved, and who will wake this task when it comes?")
    }
}
// ANCHOR_END: exercise
