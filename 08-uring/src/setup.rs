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
//! [`Unavailable`] turns each into one message that names the cause, how
//! to check it and which rung to run instead; the harness prints it before
//! the run starts and exits with status 2.

use std::fmt;
use std::io;

use crate::ring::Ring;

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
            Unavailable::Other(errno) => write!(
                f,
                "io_uring_setup failed: {} (check `sysctl kernel.io_uring_disabled` and the \
                 container's seccomp profile); {INSTEAD}",
                io::Error::from_raw_os_error(*errno)
            ),
        }
    }
}

/// Makes a ring of `entries` entries, or says why none can be made.
pub fn open(entries: u32) -> Result<Ring, Unavailable> {
    Ring::new(entries).map_err(|e| Unavailable::of(&e))
}

/// Makes, and drops, the smallest ring: can this process use io_uring?
pub fn probe() -> Result<(), Unavailable> {
    open(8).map(drop)
}
