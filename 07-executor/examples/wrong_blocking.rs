//! A loop that goes wrong, 1: a task that blocks the thread.
//!
//! Each item's task first makes a synchronous call that takes
//! [`CHECKSUM`] (a checksum of a file on a slow disk, here a
//! `std::thread::sleep`). The executor has one thread, and a poll that
//! blocks keeps it: while one task sleeps in its checksum, no other task
//! is polled, no reply is read, no timer fires. The items go through one
//! checksum at a time, `--conns` or not, and every item waits for the
//! checksums of the others.
//!
//! The fix runs the call on the blocking pool,
//! [`Handle::spawn_blocking`](executor::Handle::spawn_blocking), and
//! awaits its result: the loop goes on with the other tasks meanwhile.
//!
//! `cargo run --release -p executor --example wrong_blocking [-- --fixed] [--runtime tokio]`
//!
//! Measured so (200 items, 20 at once, 10 ms a line): the bug, 96 items/s
//! and a p99 latency of 217 ms; the fix, 607 items/s and 51 ms. On tokio
//! the same: 98 items/s and a 5 ms timer up to 197 ms late, against 638
//! items/s and no tick more than 2 ms late.

use std::process::ExitCode;
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

/// How long each item's synchronous call takes.
const CHECKSUM: Duration = Duration::from_millis(10);

/// The synchronous call: it blocks its thread for [`CHECKSUM`].
fn checksum(item_id: u64) -> u64 {
    std::thread::sleep(CHECKSUM);
    item_id.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Each item's task, before its request: the checksum.
struct Checksum {
    fixed: bool,
}

impl ItemHook for Checksum {
    fn before<'a>(&'a self, handle: &'a Handle, item: &'a Item) -> HookFuture<'a> {
        let id = item.id.0;
        if !self.fixed {
            // ANCHOR: bug
            // Blocks the loop's thread: every other task waits too.
            return Box::pin(async move {
                std::hint::black_box(checksum(id));
            });
            // ANCHOR_END: bug
        }
        // ANCHOR: fix
        // On the blocking pool; this task waits, the loop does not.
        Box::pin(async move {
            let sum = handle.spawn_blocking(move || checksum(id)).await;
            std::hint::black_box(sum.expect("the checksum does not panic"));
        })
        // ANCHOR_END: fix
    }
}

/// The same on tokio: `std::thread::sleep` blocks its one thread just
/// the same, and `tokio::task::spawn_blocking` is the fix.
fn on_tokio(fixed: bool) -> on_tokio::PerItem {
    Box::new(move |id| {
        Box::pin(async move {
            let sum = match fixed {
                false => checksum(id),
                true => tokio::task::spawn_blocking(move || checksum(id))
                    .await
                    .expect("no panic"),
            };
            std::hint::black_box(sum);
        })
    })
}

#[derive(Debug, Parser)]
#[command(name = "wrong_blocking")]
struct Args {
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let Args { common } = parse_or_exit();
    let hook = Checksum {
        fixed: common.fixed,
    };
    wrong::example(&common, hook, on_tokio)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wrong::{Ended, run_within, small, stage};

    const LIMIT: Duration = Duration::from_secs(10);

    fn throughput(fixed: bool) -> f64 {
        match run_within(
            "wrong-run",
            move || stage(Checksum { fixed }),
            small(),
            LIMIT,
        ) {
            Ended::Report(report) => {
                assert_eq!(report.ok, 40, "every item is right: {report}");
                assert_eq!(
                    wrong::warns(&report, "took"),
                    !fixed,
                    "a long poll is named when the task blocks, and only then: {:?}",
                    report.lints
                );
                assert!(fixed || report.lints.len() == 1, "{:?}", report.lints);
                assert!(!fixed || report.lints.is_empty(), "{:?}", report.lints);
                report.throughput
            }
            other => panic!("the run should end with a report: {other:?}"),
        }
    }

    #[test]
    fn blocking_serialises_the_items_and_the_pool_does_not() {
        // One checksum at a time: at most one item per CHECKSUM.
        let ceiling = 1.0 / CHECKSUM.as_secs_f64();
        let blocked = throughput(false);
        assert!(
            blocked <= ceiling,
            "blocked: {blocked:.0} items/s, at most {ceiling:.0} expected"
        );
        let pooled = throughput(true);
        assert!(
            pooled > 2.0 * ceiling,
            "on the pool: {pooled:.0} items/s, over {:.0} expected",
            2.0 * ceiling
        );
    }
}
