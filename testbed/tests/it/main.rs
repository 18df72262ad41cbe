//! The testbed's integration tests: one test binary, one module per subject
//! (matklad, "Delete Cargo Integration Tests": one binary links once and
//! runs its tests in parallel). Add a module here for a new subject; shared
//! helpers live in `util`.
//!
//! Not here: the timing test (`tests/timing.rs`), which needs a process to
//! itself, and the forked server's test (`tests/forked.rs`), which needs a
//! single-threaded one.

mod binaries;
mod conformance;
mod forked;
mod harness;
mod network;
mod page;
mod page_browser;
mod replay;
mod server;
mod shutdown;
mod slow_server;
mod stall_ends;
mod task_page;
mod util;
