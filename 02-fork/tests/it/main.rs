//! Stage 2's integration tests, in one crate (matklad, "Delete Cargo
//! Integration Tests"): the partition's properties, the thread variant's
//! conformance, then the binary as a user runs it (which is how the process
//! variant is tested: a test harness's threads must not fork). The process
//! variant's in-process checks live in `tests/forked.rs`, without libtest.

mod binary;
mod hostile;
mod lifetime;
mod partition;
mod threads;
