//! The same partitions on threads: a rayon fork-join, what a Rust
//! programmer would write instead of `fork()`.
//!
//! `--threads` runs exactly the workers of the process variant, with the
//! same partitions and the same [`work`] function, one per OS thread of a
//! rayon pool sized to the number of workers. Each still opens its own TCP
//! connection and its own database connection, so the database cost is the
//! same: N workers, N database connections. What changes is everything
//! *around* the work:
//!
//! - no `fork`, so none of its dangers: threads may hold locks, print, and
//!   share the embedded server's process;
//! - no separate address spaces either: a worker that panics does not die
//!   alone (rayon hands the panic to the caller), and one that corrupts
//!   memory takes the others with it;
//! - a thread cannot be killed from outside on its own, which is why
//!   `--crash-worker` exists only for processes.
//!
//! Blocking I/O inside rayon is normally a mistake: rayon's pool is sized
//! for CPU work, and a blocked task wastes a core's worth of pool. Here the
//! pool is private and has one thread per partition, so every blocked
//! worker has its own thread; it is the "threads with blocking I/O"
//! reference the later stages race against.
//!
//! Not here: sharing one database connection between the threads, which
//! would need a lock around it (a pool of one), the idea of stage 5.

use rayon::ThreadPoolBuilder;
use rayon::prelude::*;
use testbed::stage::{RunStats, Scenario, StageError};

use crate::partition::partition;
use crate::unfinished::{Unfinished, notes};
use crate::worker::{WorkerId, work};

/// Runs the scenario on `workers` threads, one partition each, and waits
/// for all of them.
pub fn run(scenario: &Scenario, workers: usize) -> Result<RunStats, StageError> {
    let partitions = partition(scenario.items.iter(), workers);
    let pool = ThreadPoolBuilder::new()
        .num_threads(workers)
        .thread_name(|k| format!("fork-worker-{k}"))
        .build()
        .map_err(std::io::Error::other)?;
    // ANCHOR: fork_join
    // Fork: one task per partition (`with_max_len(1)` makes rayon split
    // the list all the way down, so each idle thread of the pool steals a
    // partition of its own). Join: `collect` returns when every worker has.
    let ends: Vec<Result<(), StageError>> = pool.install(|| {
        partitions
            .par_iter()
            .with_max_len(1)
            .enumerate()
            .map(|(k, items)| work(scenario, WorkerId::new(k), items, |_| {}))
            .collect()
    });
    // ANCHOR_END: fork_join
    let unfinished: Vec<Unfinished> = ends
        .into_iter()
        .enumerate()
        .filter_map(|(k, end)| {
            end.err().map(|error| Unfinished {
                worker: WorkerId::new(k),
                why: format!("stopped: {error}"),
            })
        })
        .collect();
    let mut stats = RunStats::new(workers);
    for note in notes(scenario, &partitions, &unfinished)? {
        stats.note(note);
    }
    stats.figure("workers", "threads");
    Ok(stats)
}
