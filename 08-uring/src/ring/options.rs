//! How big a ring is made, which of the kernel's options it asks for, and
//! (for tests) the faults it can pretend.
//!
//! **Sizes.** Every operation in flight will post one completion, and the
//! completion queue must have room for all of them or the kernel has to
//! keep the rest aside (`IORING_FEAT_NODROP`, fetched back by the next
//! `io_uring_enter`). So the completion queue is sized from what the
//! caller will have in flight, not from the submission queue: a stage
//! with 10,000 connections can have tens of thousands of operations out
//! while it submits them a few thousand at a time. The kernel's own limit
//! (65,536 completions) is the only cap; past it, the overflow is kept.
//!
//! **`IORING_SETUP_COOP_TASKRUN`** (Linux 5.19). Some completions are
//! finished by "task work" that the kernel runs on the ring's own thread.
//! By default it interrupts the thread to run it, the way a signal would,
//! whatever the thread is doing; with this flag it waits until the thread
//! next enters the kernel, which a loop that enters once per turn does
//! anyway. Chapter 9 measures what that saves.

use std::io;
use std::time::Duration;

use io_uring::{IoUring, types};

use super::{Ring, RingStats, Table};

/// The largest completion queue the kernel makes (`IORING_MAX_CQ_ENTRIES`);
/// `setup_clamp` turns a larger request into this.
pub const MAX_COMPLETIONS: u32 = 65_536;

/// How to make a [`Ring`]: its submission queue, its completion queue,
/// and whether to ask for cooperative task running.
///
/// ```
/// use uring::ring::RingOptions;
///
/// // Room for 8 submissions a batch and 2,048 completions in flight.
/// let ring = RingOptions::new(8).completions(2048).build()?;
/// assert_eq!(ring.sizes(), (8, 2048));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RingOptions {
    entries: u32,
    completions: Option<u32>,
    coop_taskrun: bool,
}

impl RingOptions {
    /// `entries` submissions per batch (8 to 4,096, rounded up to a power
    /// of two by the kernel), four times as many completions, and
    /// cooperative task running where the kernel has it.
    pub fn new(entries: u32) -> RingOptions {
        RingOptions {
            entries: entries.clamp(8, 4096),
            completions: None,
            coop_taskrun: true,
        }
    }

    /// Room for `n` completions (at least the submission queue's size; at
    /// most the kernel's limit, `MAX_COMPLETIONS`). Size it to what can
    /// be in flight at once.
    pub fn completions(mut self, n: u32) -> RingOptions {
        self.completions = Some(n);
        self
    }

    /// Asks (or not) for `IORING_SETUP_COOP_TASKRUN`; a kernel without it
    /// gets a ring without it either way.
    pub fn coop_taskrun(mut self, on: bool) -> RingOptions {
        self.coop_taskrun = on;
        self
    }

    /// Makes the ring. The errors are `io_uring_setup`'s: see `setup.rs`.
    pub fn build(self) -> io::Result<Ring> {
        let cq = self
            .completions
            .unwrap_or(self.entries.saturating_mul(4))
            .clamp(self.entries, MAX_COMPLETIONS);
        let make = |coop: bool| {
            let mut builder = IoUring::builder();
            builder.setup_clamp().setup_cqsize(cq);
            if coop {
                builder.setup_coop_taskrun();
            }
            builder.build(self.entries)
        };
        let ring = match make(self.coop_taskrun) {
            // Before 5.19 the flag is unknown: the same ring without it.
            Err(e) if self.coop_taskrun && e.raw_os_error() == Some(libc::EINVAL) => make(false),
            other => other,
        }?;
        Ok(Ring {
            ring,
            table: Table::default(),
            stats: RingStats::default(),
            dropped: 0,
            faults: Faults::default(),
        })
    }
}

/// Faults a test can make a ring pretend, for the paths this kernel never
/// takes: it keeps every overflowed completion, accepts every timeout, and
/// never says `EBUSY`.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Faults {
    /// The next `busy` enters fail with `EBUSY` before reaching the kernel.
    pub(crate) busy: u32,
    /// Completions the kernel is said to have dropped.
    pub(crate) dropped: u32,
    /// Linked timeouts carry a negative time, which the kernel refuses.
    pub(crate) refuse_timeouts: bool,
}

impl Faults {
    /// The `timespec` of a linked timeout of `limit`.
    pub(crate) fn timespec(&self, limit: Duration) -> types::Timespec {
        if self.refuse_timeouts {
            // tv_sec = -1: `EINVAL` from the timeout's preparation.
            return types::Timespec::new().sec(u64::MAX);
        }
        types::Timespec::from(limit)
    }
}
