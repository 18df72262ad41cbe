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
//! So a run checks what it needs against the limit *before* it starts
//! ([`DescriptorNeed::check`]): past it, an embedded server would back off
//! on `EMFILE` while its clients wait for an accept that never comes, and
//! a run of 600 connections under a limit of 1,024 would print nothing and
//! never end.
//!
//! Not here: the system-wide limits (`fs.file-max`, `fs.nr_open`), which
//! only an administrator can change.

use std::io;

use rlimit::Resource;

/// Descriptors a run's process needs besides its connections: stdio, the
/// results database (SQLite holds a file, its write-ahead log and its
/// shared memory per connection), the server's listener and pipes, a
/// poller. Counted generously: a run that fits with 64 to spare never
/// meets `EMFILE` on its way.
pub const SPARE_DESCRIPTORS: u64 = 64;

/// What one process of a run will hold open at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescriptorNeed {
    /// The stage's connections (and what it keeps per connection).
    pub client: u64,
    /// The embedded server's ends of them, when it shares this process.
    pub server: u64,
}

impl DescriptorNeed {
    /// Everything, spare included.
    pub fn total(&self) -> u64 {
        self.client + self.server + SPARE_DESCRIPTORS
    }

    /// `Ok` if the need fits `limit` (the soft `RLIMIT_NOFILE`, already
    /// raised as far as it goes); otherwise one line naming the need, the
    /// limit and the ways out. `conns` is the connections asked for, and
    /// `per_conn` what each costs here (client and server together), for
    /// the largest `--conns` that fits.
    pub fn check(&self, limit: u64, hard: u64, conns: u64, per_conn: u64) -> Result<(), String> {
        if self.total() <= limit {
            return Ok(());
        }
        let fits = limit.saturating_sub(SPARE_DESCRIPTORS) / per_conn.max(1);
        // Only an embedded server shares this process's limit: moving it
        // out is advice only then (with --server it is out already).
        let (server, elsewhere) = if self.server > 0 {
            (
                format!(", {} for the embedded server's ends", self.server),
                ", or run slow-server in a process of its own and pass --server",
            )
        } else {
            (String::new(), "")
        };
        let hard = if hard == rlimit::INFINITY {
            "unlimited".to_owned()
        } else {
            hard.to_string()
        };
        Err(format!(
            "{conns} connections need about {} descriptors ({} for the connections{server}, \
             {SPARE_DESCRIPTORS} spare), but this process may open {limit} (RLIMIT_NOFILE, hard \
             limit {hard}): use --conns {fits} or fewer{elsewhere}",
            self.total(),
            self.client
        ))
    }
}

/// The soft and hard `RLIMIT_NOFILE`.
pub fn fd_limits() -> io::Result<(u64, u64)> {
    Resource::NOFILE.get()
}

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
    fn a_need_beyond_the_limit_names_it_and_the_ways_out() {
        // 600 connections with the server in the same process, under 1,024.
        let need = DescriptorNeed {
            client: 600,
            server: 600,
        };
        assert_eq!(need.total(), 1_264);
        let refusal = need.check(1_024, 1_024, 600, 2).expect_err("1,264 > 1,024");
        for words in [
            "1264 descriptors",
            "may open 1024",
            "--conns 480",
            "--server",
        ] {
            assert!(refusal.contains(words), "{words}: {refusal}");
        }
        assert_eq!(need.check(1_264, 1_264, 600, 2), Ok(()));
        // The server elsewhere already (--server): no advice to move it.
        let client_only = DescriptorNeed {
            client: 600,
            server: 0,
        };
        let refusal = client_only.check(256, 256, 600, 1).expect_err("600 > 256");
        assert!(refusal.contains("--conns 192"), "{refusal}");
        assert!(!refusal.contains("--server"), "{refusal}");
    }

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
