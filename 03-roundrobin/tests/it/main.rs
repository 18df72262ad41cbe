//! Stage 3's integration tests, in one crate (matklad, "Delete Cargo
//! Integration Tests"): the conformance battery in every configuration, the
//! model against a real run, then the binary as a user runs it.

mod binary;
mod conformance;
mod hostile;
mod model;
