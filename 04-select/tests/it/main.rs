//! Stage 4's integration tests, in one crate (matklad, "Delete Cargo
//! Integration Tests"). Every behaviour test runs on all three backends.

mod activity;
mod binary;
mod conformance;
mod connect;
mod flood;
mod hostile;
mod page;
mod partial;
mod pool;
mod selector;
mod util;
mod write;
