//! A loop that goes wrong, 3: a future that wakes itself instead of
//! waiting.
//!
//! A rate limiter lets the items' requests go one per [`SPACING`]: each
//! item takes the next free instant, and waits for it with [`Until`], a
//! future written by hand. Its `poll` checks the clock; too early, it
//! calls its own waker and returns `Pending`. That keeps the promise of
//! `Pending` (it will be polled again) in the worst way: the task is back
//! in the ready queue at once, the loop never sleeps, and it polls the
//! waiting tasks over and over until their instant comes. The run ends,
//! right and on time, with the loop's core busy and millions of polls
//! for a few hundred items.
//!
//! The fix waits on a timer, [`Handle::sleep_until`]: the loop sleeps in
//! `epoll_wait` until the instant, and polls each task once, then.
//!
//! `cargo run --release -p executor --example wrong_self_wake [-- --fixed] [--runtime tokio]`
//!
//! Measured so (200 items): both runs 477 items/s, the pace of the
//! limiter; the bug polled 4,802,170 times, the fix 1,000. On tokio the
//! runtime's thread used 93% of a core for the bug and 2% for the fix.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use clap::Parser;
use executor::{Handle, HookFuture, ItemHook};
use testbed::cli::parse_or_exit;
use testbed::workload::Item;

#[path = "common/on_tokio.rs"]
mod on_tokio;
#[path = "common/wrong.rs"]
mod wrong;

use wrong::Common;

/// The limiter's pace: one request every 2 ms (500 a second, half of
/// what 20 connections at 10 ms a line could do).
const SPACING: Duration = Duration::from_millis(2);

/// Hands out instants [`SPACING`] apart, the first one now.
#[derive(Default)]
struct RateLimiter {
    next: Cell<Option<Instant>>,
}

impl RateLimiter {
    /// The instant the caller may go at.
    fn reserve(&self) -> Instant {
        let now = Instant::now();
        let at = self.next.get().map_or(now, |next| next.max(now));
        self.next.set(Some(at + SPACING));
        at
    }
}

// ANCHOR: bug
/// Ready at an instant, by asking to be polled again until then.
struct Until(Instant);

impl Future for Until {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.0 {
            return Poll::Ready(());
        }
        // "Poll me again": at once, and again, and again.
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
// ANCHOR_END: bug

/// Each item's task, before its request: wait for its turn.
struct Paced {
    fixed: bool,
    limiter: RateLimiter,
}

impl ItemHook for Paced {
    fn before<'a>(&'a self, handle: &'a Handle, _item: &'a Item) -> HookFuture<'a> {
        let at = self.limiter.reserve();
        if !self.fixed {
            return Box::pin(Until(at));
        }
        // ANCHOR: fix
        // A timer: the loop sleeps until `at`, then polls this task once.
        Box::pin(handle.sleep_until(at))
        // ANCHOR_END: fix
    }
}

/// The same on tokio: the same spin; `tokio::time::sleep_until` is the
/// fix.
fn on_tokio(fixed: bool) -> on_tokio::PerItem {
    let limiter = RateLimiter::default();
    Box::new(move |_| {
        let at = limiter.reserve();
        match fixed {
            false => Box::pin(Until(at)),
            true => Box::pin(tokio::time::sleep_until(at.into())),
        }
    })
}

#[derive(Debug, Parser)]
#[command(name = "wrong_self_wake")]
struct Args {
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let Args { common } = parse_or_exit();
    let hook = Paced {
        fixed: common.fixed,
        limiter: RateLimiter::default(),
    };
    wrong::example(&common, hook, on_tokio)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wrong::{Ended, figure, run_within, small, stage};

    const LIMIT: Duration = Duration::from_secs(10);

    fn polls(fixed: bool) -> u64 {
        let make = move || {
            stage(Paced {
                fixed,
                limiter: RateLimiter::default(),
            })
        };
        match run_within("wrong-run", make, small(), LIMIT) {
            Ended::Report(report) => {
                assert_eq!(report.ok, 40, "every item is right: {report}");
                assert_eq!(
                    wrong::warns(&report, "in a row"),
                    !fixed,
                    "the self-wakes are named when the wait spins, and only then: {:?}",
                    report.lints
                );
                assert!(!fixed || report.lints.is_empty(), "{:?}", report.lints);
                figure(&report, "polls")
            }
            other => panic!("the run should end with a report: {other:?}"),
        }
    }

    #[test]
    fn a_self_waking_wait_polls_without_rest_and_a_timer_does_not() {
        let spun = polls(false);
        assert!(
            spun > 100 * 40,
            "{spun} polls for 40 items: the waits should have spun"
        );
        let timed = polls(true);
        assert!(
            timed < 10 * 40,
            "{timed} polls for 40 items: a timer wait is polled once or twice"
        );
    }
}
