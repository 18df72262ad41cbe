//! Stage 1's integration tests, in one crate (matklad, "Delete Cargo
//! Integration Tests"): the conformance battery, then the binary as a user
//! runs it.

mod binary;
mod conformance;
mod connect;
mod hostile;
