//! Stage 7's integration tests, in one crate (matklad, "Delete Cargo
//! Integration Tests"): the executor's machinery first (wakers, tasks,
//! timers, the stuck check, the semaphore, the counters), then the
//! connection and the cancellation lesson, then the stage's conformance
//! and the binary.

mod binary;
mod blocking;
mod cancel;
mod conformance;
mod conn;
mod hostile;
mod lints;
mod page;
mod semaphore;
mod stats;
mod stuck;
mod task_set;
mod tasks;
mod tidy;
mod time;
mod util;
mod waker;
