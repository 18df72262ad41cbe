//! Stage 6's integration tests, in one crate (matklad, "Delete Cargo
//! Integration Tests"): the scheduler's own behaviour first, then the
//! primitives, the race, the stage's conformance and the binary.

mod binary;
mod conformance;
mod deadlock;
mod hostile;
mod locks;
mod long_resume;
mod panics;
mod race;
mod remote;
mod scheduler;
mod stage;
mod stream;
mod tidy;
mod util;
