//! Stage 5's integration tests, in one crate (matklad, "Delete Cargo
//! Integration Tests").

mod binary;
mod checkout;
mod conformance;
mod hostile;
mod invariants;
mod restart;
mod standby;
mod timeouts;
mod util;
mod watch;
