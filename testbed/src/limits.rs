//! The per-process limit on open file descriptors, and raising it.
//!
//! Every TCP connection is a descriptor, and a process may hold at most
//! `RLIMIT_NOFILE` of them: past it, `accept` and `connect` fail with
//! `EMFILE` ("too many open files"). The limit comes as a pair: the *soft*
//! limit is what is enforced, the *hard* limit is how far an unprivileged
//! process may raise the soft one. Many systems start programs with a soft
//! limit of 1,024, far below a hard limit in the tens of thousands, so a
//! program that means to hold thousands of connections raises its own.
//!
//! An embedded server and its client live in one process and share one
//! limit: 5,000 connections cost 10,000 descriptors, one per end. That is
//! why a run of more connections than half the limit needs the server in
//! its own process ([`crate::forked`], or the `slow-server` binary).
//!
//! Not here: the system-wide limits (`fs.file-max`, `fs.nr_open`), which
//! only an administrator can change.

use std::io;

use rlimit::Resource;

/// Where Linux publishes the largest value `RLIMIT_NOFILE` may take.
const NR_OPEN: &str = "/proc/sys/fs/nr_open";

/// Raises the soft `RLIMIT_NOFILE` to the hard limit and returns the new
/// soft limit (the number of descriptors this process may now open).
///
/// Never lowers anything. A hard limit of "infinity" is not a value the
/// kernel accepts for the soft limit, so in that case the soft limit goes
/// to the kernel's ceiling, `fs.nr_open`, instead.
pub fn raise_fd_limit() -> io::Result<u64> {
    let (soft, hard) = Resource::NOFILE.get()?;
    let target = if hard == rlimit::INFINITY {
        nr_open().unwrap_or(soft).max(soft)
    } else {
        hard
    };
    if target > soft {
        Resource::NOFILE.set(target, hard)?;
    }
    Ok(target.max(soft))
}

/// The kernel's ceiling on descriptors per process, where it is published.
fn nr_open() -> Option<u64> {
    std::fs::read_to_string(NR_OPEN).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raising_reaches_the_hard_limit_and_is_idempotent() -> io::Result<()> {
        let raised = raise_fd_limit()?;
        let (soft, hard) = Resource::NOFILE.get()?;
        assert_eq!(soft, raised);
        assert!(soft == hard || hard == rlimit::INFINITY);
        assert_eq!(raise_fd_limit()?, raised);
        Ok(())
    }
}
