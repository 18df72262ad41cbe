//! Making the ring, and saying clearly why it cannot be made.
//!
//! `io_uring_setup` is the one system call this stage cannot do without,
//! and it is the one most often forbidden. Its failures are not bugs of
//! the program but facts about the machine, each with its own remedy:
//!
//! - `EPERM`: not allowed. Either the administrator turned io_uring off
//!   (`sysctl kernel.io_uring_disabled`: 1 allows it only to the group in
//!   `kernel.io_uring_group`, 2 to nobody), or a seccomp filter refuses the
//!   call. Docker's default profile has refused it since 2023, and so do
//!   many other container runtimes: io_uring reaches a large part of the
//!   kernel through a path that system-call filters cannot inspect (the
//!   operations are in shared memory, not in system calls), and it has had
//!   its share of security bugs.
//! - `ENOSYS`: the kernel has no io_uring (before 5.1, or built without
//!   `CONFIG_IO_URING`), or a seccomp filter pretends so.
//! - `ENOMEM`: no memory for the rings. Kernels before 5.12 charge them to
//!   the locked-memory limit (`ulimit -l`); later ones to the memory
//!   cgroup.
//!
//! A ring that can be made can still be too old: io_uring grew an
//! operation at a time, and a kernel without one answers its entries with
//! `EINVAL` in the middle of a run. So [`probe`] also asks the kernel which
//! operations it has (`IORING_REGISTER_PROBE`) and checks the features the
//! ring relies on (see "Kernel requirements" in [`crate::ring`]).
//!
//! [`Unavailable`] turns each into one message that names the cause, how
//! to check it and which rung to run instead; the harness prints it before
//! the run starts and exits with status 2.

use std::fmt;
use std::io;

use crate::ring::{Ring, RingOptions};

/// The rung to run where this one cannot: the same client on readiness.
pub const INSTEAD: &str = "run 07-executor (the same client on epoll readiness) instead";

// ANCHOR: causes
/// Why io_uring cannot be used on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unavailable {
    /// `EPERM`: the sysctl or a seccomp filter forbids it.
    Forbidden,
    /// `ENOSYS`: the kernel has none (or a filter says so).
    Missing,
    /// `ENOMEM`: no memory for the rings.
    NoMemory,
    /// The kernel has io_uring, but not this operation or feature, which
    /// the ring needs (each names the version that brought it).
    TooOld(&'static str),
    /// Any other error of `io_uring_setup`, by its number.
    Other(i32),
}

impl Unavailable {
    /// What `error` from `io_uring_setup` means.
    ///
    /// ```
    /// use std::io;
    /// use uring::setup::Unavailable;
    ///
    /// let error = io::Error::from_raw_os_error(libc::EPERM);
    /// let why = Unavailable::of(&error);
    /// assert_eq!(why, Unavailable::Forbidden);
    /// assert!(why.to_string().contains("sysctl kernel.io_uring_disabled"));
    /// ```
    pub fn of(error: &io::Error) -> Unavailable {
        match error.raw_os_error() {
            Some(libc::EPERM) => Unavailable::Forbidden,
            Some(libc::ENOSYS) => Unavailable::Missing,
            Some(libc::ENOMEM) => Unavailable::NoMemory,
            other => Unavailable::Other(other.unwrap_or(0)),
        }
    }
}
// ANCHOR_END: causes

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::Forbidden => write!(
                f,
                "io_uring is not allowed here (io_uring_setup: EPERM): either the kernel forbids \
                 it (check `sysctl kernel.io_uring_disabled`: 0 allows it, 1 only to the group \
                 in kernel.io_uring_group, 2 to nobody) or a seccomp filter does (check \
                 `grep Seccomp /proc/self/status` and the container's seccomp profile: Docker's \
                 default one refuses io_uring); {INSTEAD}"
            ),
            Unavailable::Missing => write!(
                f,
                "this kernel has no io_uring (io_uring_setup: ENOSYS): it is older than 5.1, \
                 built without CONFIG_IO_URING, or a seccomp filter hides the call (check \
                 `uname -r` and the container's seccomp profile); {INSTEAD}"
            ),
            Unavailable::NoMemory => write!(
                f,
                "io_uring could not get memory for its rings (io_uring_setup: ENOMEM): kernels \
                 before 5.12 charge them to the locked-memory limit (check `ulimit -l`), later \
                 ones to the memory cgroup (check the container's memory limit); {INSTEAD}"
            ),
            Unavailable::TooOld(missing) => write!(
                f,
                "this kernel's io_uring lacks {missing}, which this stage needs (check `uname \
                 -r`: Linux 5.11 or later has everything); {INSTEAD}"
            ),
            Unavailable::Other(errno) => write!(
                f,
                "io_uring_setup failed: {} (check `sysctl kernel.io_uring_disabled` and the \
                 container's seccomp profile); {INSTEAD}",
                io::Error::from_raw_os_error(*errno)
            ),
        }
    }
}

/// The most operations one lane can have in the kernel at once: a
/// connect and its timeout, or a send, a read and the read's timeout, and
/// then a cancel for each of those three.
pub const LANE_OPERATIONS: u32 = 6;

/// Makes a ring for `lanes` lanes, or says why none can be made: room for
/// every lane's send, read and linked timeout in one batch (a fuller
/// submission queue is submitted early, costing one more call), and a
/// completion for everything every lane can have in flight.
pub fn open(lanes: u32) -> Result<Ring, Unavailable> {
    RingOptions::new(lanes.saturating_mul(3))
        .completions(lanes.saturating_mul(LANE_OPERATIONS))
        .build()
        .map_err(|e| Unavailable::of(&e))
}

/// Makes the smallest ring and asks it what the kernel can do: can this
/// process use io_uring, and does the kernel have everything the ring
/// needs?
pub fn probe() -> Result<(), Unavailable> {
    let ring = io_uring::IoUring::new(8).map_err(|e| Unavailable::of(&e))?;
    let mut ops = io_uring::Probe::new();
    // Before 5.6 there is no probe: every operation then reads as missing,
    // which is right, since RECV and SEND came with 5.6.
    let _ = ring.submitter().register_probe(&mut ops);
    let params = ring.params();
    requirements(
        |code| ops.is_supported(code),
        params.is_feature_nodrop(),
        params.is_feature_ext_arg(),
    )
}

// ANCHOR: requirements
/// What the ring needs of the kernel, given which opcodes it has
/// (`supported`) and its two features: the first thing missing, if any.
///
/// ```
/// use io_uring::opcode;
/// use uring::setup::{Unavailable, requirements};
///
/// // A 5.5 kernel: no RECV yet.
/// let old = requirements(|code| code != opcode::Recv::CODE, true, false);
/// assert_eq!(old, Err(Unavailable::TooOld("IORING_OP_RECV (Linux 5.6)")));
/// assert!(requirements(|_| true, true, true).is_ok());
/// ```
pub fn requirements(
    supported: impl Fn(u8) -> bool,
    nodrop: bool,
    ext_arg: bool,
) -> Result<(), Unavailable> {
    use io_uring::opcode;
    let ops = [
        (opcode::Connect::CODE, "IORING_OP_CONNECT (Linux 5.5)"),
        (opcode::Send::CODE, "IORING_OP_SEND (Linux 5.6)"),
        (opcode::Recv::CODE, "IORING_OP_RECV (Linux 5.6)"),
        (
            opcode::LinkTimeout::CODE,
            "IORING_OP_LINK_TIMEOUT (Linux 5.5)",
        ),
        (
            opcode::AsyncCancel::CODE,
            "IORING_OP_ASYNC_CANCEL (Linux 5.5)",
        ),
    ];
    if let Some((_, name)) = ops.iter().find(|(code, _)| !supported(*code)) {
        return Err(Unavailable::TooOld(name));
    }
    if !nodrop {
        return Err(Unavailable::TooOld(
            "IORING_FEAT_NODROP (Linux 5.5), without which a full completion queue loses completions",
        ));
    }
    if !ext_arg {
        return Err(Unavailable::TooOld(
            "IORING_FEAT_EXT_ARG (Linux 5.11), the wait with a time limit that a ring dropped with operations in flight needs",
        ));
    }
    Ok(())
}
// ANCHOR_END: requirements
