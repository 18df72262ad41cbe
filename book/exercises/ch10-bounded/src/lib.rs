//! Chapter 10, exercise 5: one task per item, and a limit.
//!
//! A task is small, so spawning one per item looks free:
//! `for item in items { handle.spawn(job(item)); }`. With a million items
//! that is a million tasks at once, each holding its buffers, and, when
//! each opens a connection, a million connections asked of a server that
//! takes fifty. The executor's count of the most tasks alive at once
//! (`Stats::peak_tasks`) says it: the peak is the number of items, not
//! the number the run can use.
//!
//! [`run_bounded`] runs one task per item, but at most `limit` of them
//! alive at once: it waits for a free slot *before* spawning the next
//! task, so no more than `limit` tasks ever exist (a task that waits for
//! its turn inside itself is already alive). A slow item holds its own
//! slot, not a whole batch: the next item starts as soon as any one ends.
//! The outputs come back in the order of the items, whatever order the
//! tasks end in; a task that panics gives its item an error and nothing
//! else.
//!
//! Write [`run_bounded`]. 07's [`Semaphore`] counts
//! slots; a [`Permit`](executor::Permit) can move into a task and goes
//! back when the task ends, however it ends.
//!
//! Ten items, at most three at once:
//!
//! ```
//! use ch10_bounded::run_bounded;
//! use executor::Executor;
//!
//! let executor = Executor::new()?;
//! let handle = executor.handle();
//! let doubled = executor.block_on(run_bounded(&handle, (0..10).collect(), 3, |n: u32| async move {
//!     n * 2
//! }))?;
//! let doubled: Vec<u32> = doubled.into_iter().map(Result::unwrap).collect();
//! assert_eq!(doubled, (0..10).map(|n| n * 2).collect::<Vec<_>>(), "each output, in item order");
//! assert!(executor.stats().peak_tasks <= 3, "never more than three tasks alive");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch10-bounded");

use std::future::Future;

use executor::{Handle, JoinError, Semaphore};

#[cfg(test)]
mod tests;

// ANCHOR: exercise
/// Runs `job(item)` for every item, each in a task of its own, with at
/// most `limit` of those tasks alive at once (`limit` is at least 1).
/// Every item's output, or how its task failed, in the order of the items.
pub async fn run_bounded<T, F, Fut>(
    handle: &Handle,
    items: Vec<T>,
    limit: usize,
    mut job: F,
) -> Vec<Result<Fut::Output, JoinError>>
where
    F: FnMut(T) -> Fut,
    Fut: Future + 'static,
    Fut::Output: 'static,
{
    assert!(limit >= 1, "run_bounded needs a limit of at least 1");
    // EXERCISE-BEGIN: when do you wait for a free slot: before spawning the task or inside it? And how do the outputs get back in item order?
    let slots = Semaphore::new(handle, limit);
    let mut tasks = Vec::with_capacity(items.len());
    for item in items {
        // Before the spawn: a task that waited inside itself would
        // already be alive, and count.
        let permit = slots.acquire().await;
        let work = job(item);
        tasks.push(handle.spawn(async move {
            let output = work.await;
            // Back when the task ends; a panic drops it too.
            drop(permit);
            output
        }));
    }
    // The handles, in item order: awaiting them in turn gives the outputs
    // in item order, whichever task ended first.
    let mut outputs = Vec::with_capacity(tasks.len());
    for task in tasks {
        outputs.push(task.await);
    }
    outputs
    // EXERCISE-END
}
// ANCHOR_END: exercise
