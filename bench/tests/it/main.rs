//! The bench crate's integration tests, in one crate (matklad, "Delete
//! Cargo Integration Tests"): the references keep the stage contract, and
//! the `race` binary produces what it promises.

mod hostile;
mod race;
mod references;
mod stopped;
