//! A loop that goes wrong, 4: futurelock, a future kept but no longer
//! polled, holding what its own task waits for.
//!
//! The items share a cache behind a one-permit [`Semaphore`] (a lock that
//! tasks await). Each item updates the cache under the lock, but gives
//! the update [`PATIENCE`]: past that, it writes a line to the cache's
//! log, under the same lock, and then finishes the update. The update is
//! pinned and passed to `timeout` *by reference*, so that it can be
//! finished later; when the timeout fires, the update is not dropped, it
//! is only no longer polled. And it holds the permit (or, queued, is the
//! one the permit is handed to next): the task then waits for the lock a
//! second time, behind its own update, which can only go on when the task
//! polls it, which it will not until it has the lock. Every other item
//! queues behind. The executor sees that nothing can wake them and ends
//! the run stuck; tokio waits for ever. (The name is Oxide Computer's,
//! who met it in production with tokio's semaphore and `select!`.)
//!
//! The fix gives `timeout` the update *by value*: when the time is up the
//! update is dropped, and its permit, or its place in the line, with it.
//! (Keeping the update and finishing it before taking the lock again
//! works too; what does not is a future that is neither polled nor
//! dropped.)
//!
//! `cargo run --release -p executor --example wrong_futurelock [-- --fixed] [--runtime tokio]`
//!
//! Measured so: the bug ends at once with exit status 1 and "stuck: 21
//! tasks wait and nothing can wake them (21 on a semaphore permit)"; the
//! fix, 200 items ok at 827 items/s. On tokio the bug is still waiting
//! when the example gives up on it, after 5 s.

use std::cell::OnceCell;
use std::pin::pin;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use executor::{Handle, HookFuture, ItemHook, Semaphore};
use testbed::cli::parse_or_exit;
use testbed::workload::Item;

#[path = "common/on_tokio.rs"]
mod on_tokio;
#[path = "common/wrong.rs"]
mod wrong;

use wrong::Common;

/// How long an update of the cache takes, under the lock.
const UPDATE: Duration = Duration::from_millis(2);
/// How long an item waits for its update before it writes to the log:
/// the first update of a burst is in time, the ones queued behind it not.
const PATIENCE: Duration = Duration::from_millis(3);

/// Each item's task, before its request: update the shared cache.
struct UpdateCache {
    fixed: bool,
    /// The cache's lock, made on the first item (a semaphore needs the
    /// executor's handle).
    lock: OnceCell<Semaphore>,
}

impl ItemHook for UpdateCache {
    fn before<'a>(&'a self, handle: &'a Handle, _item: &'a Item) -> HookFuture<'a> {
        let lock = self.lock.get_or_init(|| Semaphore::new(handle, 1));
        let update = async move {
            let _permit = lock.acquire().await;
            handle.sleep(UPDATE).await;
        };
        if !self.fixed {
            return Box::pin(async move {
                // ANCHOR: bug
                let mut update = pin!(update);
                if handle.timeout(PATIENCE, update.as_mut()).await.is_err() {
                    // `update` is kept, not polled, and holds the lock.
                    let log = lock.acquire().await; // Waits for ever.
                    drop(log);
                    update.await;
                }
                // ANCHOR_END: bug
            });
        }
        Box::pin(async move {
            // ANCHOR: fix
            if handle.timeout(PATIENCE, update).await.is_err() {
                // `update` has been dropped, and its permit given back.
                let log = lock.acquire().await;
                drop(log);
            }
            // ANCHOR_END: fix
        })
    }
}

/// The same on tokio, with its FIFO semaphore: the same futurelock.
fn on_tokio(fixed: bool) -> on_tokio::PerItem {
    let lock = std::rc::Rc::new(tokio::sync::Semaphore::new(1));
    Box::new(move |_| {
        let lock = lock.clone();
        Box::pin(async move {
            let update = async {
                let _permit = lock.acquire().await.expect("never closed");
                tokio::time::sleep(UPDATE).await;
            };
            if fixed {
                if tokio::time::timeout(PATIENCE, update).await.is_err() {
                    drop(lock.acquire().await);
                }
                return;
            }
            let mut update = pin!(update);
            if tokio::time::timeout(PATIENCE, update.as_mut())
                .await
                .is_err()
            {
                drop(lock.acquire().await);
                update.await;
            }
        })
    })
}

#[derive(Debug, Parser)]
#[command(name = "wrong_futurelock")]
struct Args {
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let Args { common } = parse_or_exit();
    let hook = UpdateCache {
        fixed: common.fixed,
        lock: OnceCell::new(),
    };
    wrong::example(&common, hook, on_tokio)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wrong::{Ended, run_within, small, stage};

    const LIMIT: Duration = Duration::from_secs(10);

    fn hook(fixed: bool) -> UpdateCache {
        UpdateCache {
            fixed,
            lock: OnceCell::new(),
        }
    }

    #[test]
    fn a_kept_unpolled_update_locks_the_run() {
        match run_within("wrong-run", || stage(hook(false)), small(), LIMIT) {
            Ended::Error(error) => assert!(
                error.contains("stuck")
                    && error.contains("futurelock: task")
                    && error.contains("that it holds itself")
                    && !error.contains("block_on future waits"),
                "the stuck check names the tasks waiting for the lock: {error}"
            ),
            other => panic!("the run should end stuck: {other:?}"),
        }
    }

    #[test]
    fn a_dropped_update_gives_the_lock_back() {
        match run_within("wrong-run", || stage(hook(true)), small(), LIMIT) {
            Ended::Report(report) => {
                assert_eq!(report.ok, 40, "every item is right: {report}");
                assert!(report.lints.is_empty(), "no warning: {:?}", report.lints);
            }
            other => panic!("the run should end with a report: {other:?}"),
        }
    }
}
