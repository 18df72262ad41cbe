//! The client's CPU time, and a stage wrapper that measures it.
//!
//! At zero latency every model is bounded by the same system calls and the
//! same loopback TCP, so their throughputs land close together; what tells
//! them apart is how much CPU the *client* burns per item. The kernel keeps
//! that count for us: `getrusage(2)` returns the user and system time of
//! this process (`RUSAGE_SELF`, all its threads) and of its children that
//! have ended and been waited for (`RUSAGE_CHILDREN`, which is where 02-fork's
//! worker processes land once `waitpid` has collected them).
//!
//! [`Metered`] wraps any [`Stage`] and takes both counts just before and
//! just after [`Stage::run`], so the figure is the stage's work and nothing
//! of the harness's: creating the database and verifying it afterwards are
//! outside; every `INSERT` the stage makes is inside (storing the outcome is
//! part of the job).
//!
//! The figure is only the client's when the slow server runs in another
//! process: an embedded server's threads would be counted too. The race and
//! the benches start their servers with [`testbed::forked::ForkedServer`]
//! ([`crate::servers`]).
//!
//! One more count belongs to the machine rather than the client: on a
//! virtual machine the hypervisor may run other guests on "our" cores, and
//! the time it takes is *steal* in `/proc/stat`
//! ([`testbed::machine::MachineTicks`]). A race
//! run under heavy steal has less CPU than it thinks, and its efficiency
//! falls with it, so the race reports the share it saw.
//!
//! Not here: wall time, which the harness measures around the same call.

use std::cell::Cell;
use std::ops::Sub;
use std::time::Duration;

use nix::sys::resource::{Usage, UsageWho, getrusage};
use nix::sys::time::TimeVal;
use serde::{Deserialize, Serialize};
use testbed::stage::{RunStats, Scenario, Stage, StageError};

/// CPU time spent so far, split the way the kernel counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuTime {
    /// Time running our own code (and libraries: SQLite, the allocator).
    pub user: Duration,
    /// Time in the kernel on our behalf: system calls, and the TCP stack
    /// work they trigger.
    pub sys: Duration,
}

impl CpuTime {
    /// This process and its waited-for children, so far.
    // ANCHOR: now
    pub fn now() -> std::io::Result<CpuTime> {
        let own = getrusage(UsageWho::RUSAGE_SELF)?;
        let children = getrusage(UsageWho::RUSAGE_CHILDREN)?;
        Ok(CpuTime::from(own) + CpuTime::from(children))
    }
    // ANCHOR_END: now

    /// User plus system.
    pub fn total(self) -> Duration {
        self.user + self.sys
    }
}

impl From<Usage> for CpuTime {
    fn from(usage: Usage) -> CpuTime {
        CpuTime {
            user: duration(usage.user_time()),
            sys: duration(usage.system_time()),
        }
    }
}

impl std::ops::Add for CpuTime {
    type Output = CpuTime;
    fn add(self, other: CpuTime) -> CpuTime {
        CpuTime {
            user: self.user + other.user,
            sys: self.sys + other.sys,
        }
    }
}

impl Sub for CpuTime {
    type Output = CpuTime;
    /// The time between two readings (never negative: the counters only
    /// grow, but saturate anyway rather than panic).
    fn sub(self, earlier: CpuTime) -> CpuTime {
        CpuTime {
            user: self.user.saturating_sub(earlier.user),
            sys: self.sys.saturating_sub(earlier.sys),
        }
    }
}

fn duration(tv: TimeVal) -> Duration {
    // The kernel never reports negative times; clamp rather than trust it.
    let secs = u64::try_from(tv.tv_sec()).unwrap_or(0);
    let micros = u32::try_from(tv.tv_usec()).unwrap_or(0);
    Duration::from_secs(secs) + Duration::from_micros(micros.into())
}

/// A stage that measures the CPU time of its inner stage's `run`.
///
/// Everything else (name, database needs, forking, read timeouts) is the
/// inner stage's, so the harness treats it exactly as it would the stage
/// itself.
pub struct Metered<'a> {
    stage: &'a dyn Stage,
    spent: Cell<Option<CpuTime>>,
}

impl<'a> Metered<'a> {
    /// Wraps `stage`.
    pub fn new(stage: &'a dyn Stage) -> Metered<'a> {
        Metered {
            stage,
            spent: Cell::new(None),
        }
    }

    /// The CPU time of the last `run`, if one finished.
    pub fn spent(&self) -> Option<CpuTime> {
        self.spent.get()
    }
}

impl Stage for Metered<'_> {
    fn name(&self) -> &'static str {
        self.stage.name()
    }

    fn needs_db_file(&self) -> bool {
        self.stage.needs_db_file()
    }

    fn forks(&self) -> bool {
        self.stage.forks()
    }

    fn read_timeout(&self) -> testbed::stage::ReadTimeoutSupport {
        self.stage.read_timeout()
    }

    fn available(&self) -> Result<(), String> {
        self.stage.available()
    }

    // ANCHOR: metered
    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let before = CpuTime::now()?;
        let stats = self.stage.run(scenario)?;
        self.spent.set(Some(CpuTime::now()? - before));
        Ok(stats)
    }
    // ANCHOR_END: metered
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_work_shows_as_user_time() {
        let before = CpuTime::now().expect("getrusage works on Linux");
        // Spin until the kernel has counted 50 ms of user time for us,
        // however little of the machine this thread gets. Not a share of
        // the total: the kernel splits a process's CPU into user and system
        // time by sampling at each clock tick, and the other tests' threads
        // count in this process too, so on a busy machine a single tick can
        // land on either side. The deadline fails a counter that does not
        // count user time. (black_box keeps the loop from being optimised
        // away.)
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut x = 0u64;
        let spent = loop {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
            let spent = CpuTime::now().expect("getrusage works on Linux") - before;
            if spent.user >= Duration::from_millis(50) || std::time::Instant::now() > deadline {
                break spent;
            }
        };
        assert!(
            spent.user >= Duration::from_millis(50),
            "10 s of spinning counted as {spent:?}"
        );
    }
}
