//! The thread-safe types of `schedule.rs`, from the standard library, or
//! from loom when the crate is built with `RUSTFLAGS="--cfg loom"`.
//!
//! Loom is a model checker: it runs a test's threads through every
//! interleaving the memory model allows, loads that read an older value
//! included, and for that it needs the atomics and locks to be its own.
//! Only `schedule.rs` (the flag and the queue other threads touch) goes
//! through this file, so the model stays small; the rest of the crate uses
//! `std::sync` directly.
//!
//! Not here: the model itself (`schedule/loom.rs`).

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::{Mutex, MutexGuard};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Mutex, MutexGuard};
