//! Stage 8's integration tests, in one crate (matklad, "Delete Cargo
//! Integration Tests"): the ring's own promises first (a buffer comes back
//! only with its completion), then peers that split, join and flood
//! lines, the conformance battery every rung passes, the binary, and the
//! refusal where io_uring is forbidden.

mod binary;
mod check_setup;
mod conformance;
mod hostile;
mod overflow;
mod peers;
mod refusal;
mod ring;
mod store_error;
mod util;
