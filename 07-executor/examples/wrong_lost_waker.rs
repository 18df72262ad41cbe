//! A loop that goes wrong, 2: a future that returns `Pending` and keeps
//! no waker.
//!
//! Each item's task hands a checksum to a task of its own and waits for
//! the answer on a one-shot channel written by hand, [`Answer`]. Its
//! `poll` returns `Pending` while the answer is not there, and that is a
//! promise: "I will be woken when polling me again can get further". The
//! promise is kept by giving the task's waker to whoever will make
//! progress possible, here the sender. The bug forgets to: the sender
//! writes the answer, finds no waker to call, and nobody ever polls the
//! receiver again. The executor sees tasks that wait with nothing able to
//! wake them and ends the run with its stuck error, naming what they wait
//! on; tokio has no such check, and waits for ever.
//!
//! The fix is one line: keep the waker, and the sender calls it.
//!
//! `cargo run --release -p executor --example wrong_lost_waker [-- --fixed] [--runtime tokio]`
//!
//! Measured so: the bug ends at once with exit status 1 and "stuck: 21
//! tasks wait and nothing can wake them (1 on a semaphore permit; 20 on
//! nothing: its future returned Pending and kept no waker)"; the fix, 200
//! items ok at 896 items/s. On tokio the bug is still waiting when the
//! example gives up on it, after 5 s.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use clap::Parser;
use executor::{Handle, HookFuture, ItemHook};
use testbed::cli::parse_or_exit;
use testbed::workload::Item;

#[path = "common/on_tokio.rs"]
mod on_tokio;
#[path = "common/wrong.rs"]
mod wrong;

use wrong::Common;

/// How long the checksum's own task takes to answer.
const ANSWER_AFTER: Duration = Duration::from_millis(1);

/// A one-shot channel between two tasks of one thread: the value, and the
/// waker of the task waiting for it.
#[derive(Default)]
struct OneShot {
    value: Cell<Option<u64>>,
    waiter: RefCell<Option<Waker>>,
}

impl OneShot {
    /// Writes the answer and wakes the waiting task, if it left a waker.
    fn send(&self, value: u64) {
        self.value.set(Some(value));
        if let Some(waiter) = self.waiter.take() {
            waiter.wake();
        }
    }
}

/// The receiving end: ready with the answer once it is there.
struct Answer {
    channel: Rc<OneShot>,
    keep_waker: bool,
}

impl Future for Answer {
    type Output = u64;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u64> {
        if let Some(value) = self.channel.value.take() {
            return Poll::Ready(value);
        }
        if self.keep_waker {
            // ANCHOR: fix
            // The promise of `Pending`: the sender will call this.
            self.channel.waiter.replace(Some(cx.waker().clone()));
            // ANCHOR_END: fix
        }
        // ANCHOR: bug
        // Without the waker above, nothing will ever poll this again.
        Poll::Pending
        // ANCHOR_END: bug
    }
}

/// Each item's task, before its request: ask for the checksum, await it.
struct AskChecksum {
    fixed: bool,
}

impl ItemHook for AskChecksum {
    fn before<'a>(&'a self, handle: &'a Handle, item: &'a Item) -> HookFuture<'a> {
        let channel = Rc::new(OneShot::default());
        let (sender, timer, id) = (channel.clone(), handle.clone(), item.id.0);
        drop(handle.spawn(async move {
            timer.sleep(ANSWER_AFTER).await;
            sender.send(id.rotate_left(17));
        }));
        Box::pin(async move {
            let answer = Answer {
                channel,
                keep_waker: self.fixed,
            };
            std::hint::black_box(answer.await);
        })
    }
}

/// The same future on tokio: the same promise broken, the same hang.
fn on_tokio(keep_waker: bool) -> on_tokio::PerItem {
    Box::new(move |id| {
        let channel = Rc::new(OneShot::default());
        let sender = channel.clone();
        tokio::task::spawn_local(async move {
            tokio::time::sleep(ANSWER_AFTER).await;
            sender.send(id.rotate_left(17));
        });
        Box::pin(async move {
            std::hint::black_box(
                Answer {
                    channel,
                    keep_waker,
                }
                .await,
            );
        })
    })
}

#[derive(Debug, Parser)]
#[command(name = "wrong_lost_waker")]
struct Args {
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let Args { common } = parse_or_exit();
    let hook = AskChecksum {
        fixed: common.fixed,
    };
    wrong::example(&common, hook, on_tokio)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wrong::{Ended, run_within, small, stage};

    const LIMIT: Duration = Duration::from_secs(10);

    #[test]
    fn a_lost_waker_ends_the_run_as_stuck() {
        match run_within(
            "wrong-run",
            || stage(AskChecksum { fixed: false }),
            small(),
            LIMIT,
        ) {
            Ended::Error(error) => assert!(
                error.contains("stuck")
                    && error.contains("kept no waker")
                    && error.contains("spawned at"),
                "the stuck check names the lost waker: {error}"
            ),
            other => panic!("the run should end stuck: {other:?}"),
        }
    }

    #[test]
    fn a_kept_waker_finishes_every_item() {
        match run_within(
            "wrong-run",
            || stage(AskChecksum { fixed: true }),
            small(),
            LIMIT,
        ) {
            Ended::Report(report) => {
                assert_eq!(report.ok, 40, "every item is right: {report}");
                assert!(report.lints.is_empty(), "no warning: {:?}", report.lints);
            }
            other => panic!("the run should end with a report: {other:?}"),
        }
    }
}
