//! A loop that goes wrong, 5: a borrow, or a lock, held across an
//! `.await`.
//!
//! The items share a list of the ids they have seen. Each item takes the
//! list, looks the id up somewhere slow (an `.await`, [`LOOKUP`]), then
//! adds it. The bug takes the list *before* the lookup and keeps it
//! across the `.await`: while its task waits, the next item's task runs
//! on the same thread and asks for the list too.
//!
//! - In a `RefCell` (the default) the second `borrow_mut` panics,
//!   "already borrowed": that task ends, its item is lost, and the report
//!   lists the panics. It would never happen with one task; with many it
//!   is the first overlap.
//! - In a `std::sync::Mutex` (`--mutex`) the second `lock` is made by
//!   the thread that holds the lock already: it sleeps in the kernel
//!   (`futex`) waiting for itself, for ever. Nothing runs any more, not
//!   even the loop; the watchdog says the run has recorded nothing
//!   (`--stall-after 1s` to hear it sooner) and Ctrl-C ends it.
//!
//! The fix takes the list only where it is used, before and after the
//! `.await`, never across it. Clippy refuses the bug
//! (`await_holding_refcell_ref`, `await_holding_lock`); it is allowed
//! below to be shown.
//!
//! `cargo run --release -p executor --example wrong_borrow_across_await [-- --fixed] [--mutex] [--runtime tokio]`
//!
//! Measured so (200 items, 20 at once): with the `RefCell`, 1 item ok and
//! 199 lost to as many panics, exit status 1; with `--mutex`, 0 items
//! recorded until Ctrl-C; the fixes, 200 items ok (854 items/s with the
//! `RefCell`, 902 with the mutex).

use std::cell::RefCell;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use clap::Parser;
use executor::{Handle, HookFuture, ItemHook};
use testbed::cli::parse_or_exit;
use testbed::workload::Item;

#[path = "common/on_tokio.rs"]
mod on_tokio;
#[path = "common/wrong.rs"]
mod wrong;

use wrong::{Common, Runtime};

/// How long the lookup of an id takes.
const LOOKUP: Duration = Duration::from_millis(1);

/// The list of ids seen, in a `RefCell` or in a `Mutex`.
#[derive(Default)]
struct Seen {
    fixed: bool,
    mutex: bool,
    in_cell: RefCell<Vec<u64>>,
    in_mutex: Mutex<Vec<u64>>,
}

impl ItemHook for Seen {
    // Clippy knows this mistake (`await_holding_refcell_ref`,
    // `await_holding_lock`) and refuses the bug; allowed here to show it.
    #[allow(clippy::await_holding_refcell_ref, clippy::await_holding_lock)]
    fn before<'a>(&'a self, handle: &'a Handle, item: &'a Item) -> HookFuture<'a> {
        let id = item.id.0;
        match (self.fixed, self.mutex) {
            (false, false) => Box::pin(async move {
                // ANCHOR: bug
                let mut seen = self.in_cell.borrow_mut();
                handle.sleep(LOOKUP).await; // The next task borrows: panic.
                seen.push(id);
                // ANCHOR_END: bug
            }),
            (false, true) => Box::pin(async move {
                // ANCHOR: bug_mutex
                let mut seen = self.in_mutex.lock().expect("not poisoned");
                handle.sleep(LOOKUP).await; // The next task locks: deadlock.
                seen.push(id);
                // ANCHOR_END: bug_mutex
            }),
            (true, false) => Box::pin(async move {
                // ANCHOR: fix
                let known = self.in_cell.borrow().contains(&id);
                handle.sleep(LOOKUP).await; // No borrow held here.
                if !known {
                    self.in_cell.borrow_mut().push(id);
                }
                // ANCHOR_END: fix
            }),
            (true, true) => Box::pin(async move {
                // ANCHOR: fix_mutex
                let known = self.in_mutex.lock().expect("not poisoned").contains(&id);
                handle.sleep(LOOKUP).await; // No guard held here.
                if !known {
                    self.in_mutex.lock().expect("not poisoned").push(id);
                }
                // ANCHOR_END: fix_mutex
            }),
        }
    }
}

/// The same on tokio: the same panic, or the same thread asleep for ever.
#[allow(clippy::await_holding_refcell_ref, clippy::await_holding_lock)]
fn on_tokio(fixed: bool, mutex: bool) -> on_tokio::PerItem {
    let seen = std::rc::Rc::new(Seen {
        fixed,
        mutex,
        ..Seen::default()
    });
    Box::new(move |id| {
        let seen = seen.clone();
        Box::pin(async move {
            if seen.mutex {
                let mut list = seen.in_mutex.lock().expect("not poisoned");
                if seen.fixed {
                    drop(list);
                    tokio::time::sleep(LOOKUP).await;
                    list = seen.in_mutex.lock().expect("not poisoned");
                } else {
                    tokio::time::sleep(LOOKUP).await;
                }
                list.push(id);
            } else {
                let mut list = seen.in_cell.borrow_mut();
                if seen.fixed {
                    drop(list);
                    tokio::time::sleep(LOOKUP).await;
                    list = seen.in_cell.borrow_mut();
                } else {
                    tokio::time::sleep(LOOKUP).await;
                }
                list.push(id);
            }
        })
    })
}

#[derive(Debug, Parser)]
#[command(name = "wrong_borrow_across_await")]
struct Args {
    #[command(flatten)]
    common: Common,

    /// Hold a `std::sync::Mutex` guard across the `.await` instead of a
    /// `RefCell` borrow.
    #[arg(long)]
    mutex: bool,
}

fn main() -> ExitCode {
    let Args { common, mutex } = parse_or_exit();
    let fixed = common.fixed;
    let hook = Seen {
        fixed,
        mutex,
        ..Seen::default()
    };
    match common.runtime {
        Runtime::Executor => wrong::run(hook, &common.settings),
        Runtime::Tokio => on_tokio::run(&common.settings, true, move || on_tokio(fixed, mutex)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wrong::{Ended, figure, run_within, small, stage};

    const LIMIT: Duration = Duration::from_secs(10);

    fn make(fixed: bool, mutex: bool) -> impl FnOnce() -> executor::Futures + Send {
        move || {
            stage(Seen {
                fixed,
                mutex,
                ..Seen::default()
            })
        }
    }

    #[test]
    fn a_borrow_across_an_await_panics_in_the_next_task() {
        match run_within("wrong-run", make(false, false), small(), LIMIT) {
            Ended::Report(report) => {
                assert!(report.lost > 0, "the panicked items are lost: {report}");
                assert!(
                    figure(&report, "task_panics") > 0,
                    "panics counted: {report}"
                );
                assert!(
                    wrong::warns(&report, "held across an .await"),
                    "the report names the borrow: {:?}",
                    report.lints
                );
                assert!(
                    report.notes.iter().any(|n| n.contains("already")),
                    "the panic says the cell was already borrowed: {:?}",
                    report.notes
                );
            }
            other => panic!("the run should end with a report: {other:?}"),
        }
    }

    #[test]
    fn a_guard_across_an_await_blocks_the_thread() {
        // The thread is left behind, asleep in the kernel, when the test
        // ends.
        let ended = run_within(
            "guard-across",
            make(false, true),
            small(),
            Duration::from_secs(1),
        );
        assert!(
            matches!(ended, Ended::Running),
            "the run should never end: {ended:?}"
        );
        assert!(
            wrong::blocked_on_lock("guard-across"),
            "the run's thread should be asleep in futex, on the mutex"
        );
    }

    #[test]
    fn scoped_borrows_and_guards_finish_every_item() {
        for mutex in [false, true] {
            match run_within("wrong-run", make(true, mutex), small(), LIMIT) {
                Ended::Report(report) => {
                    assert_eq!(
                        report.ok, 40,
                        "mutex {mutex}: every item is right: {report}"
                    );
                    assert!(report.lints.is_empty(), "no warning: {:?}", report.lints);
                }
                other => panic!("mutex {mutex}: the run should end with a report: {other:?}"),
            }
        }
    }
}
