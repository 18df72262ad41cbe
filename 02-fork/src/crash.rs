//! A child that dies on purpose, for teaching and testing: `--crash-worker
//! K:N`.
//!
//! The promise of this stage is that a worker process can die (killed by
//! the OOM killer, by an operator, by a bug in a C library) without its
//! items vanishing silently: the parent notices the exit status and reports
//! every item of that partition that has no row. To *show* that, and to test
//! it, a child must die at a known point, every time. A [`CrashPlan`] makes
//! worker `K` send itself `SIGKILL` (which it cannot catch or clean up
//! after, like a real kill) right after recording its `N`th outcome.
//!
//! Not here: the detection itself ([`crate::processes`]).

use std::fmt;
use std::str::FromStr;

use crate::worker::WorkerId;

/// The forms `--crash-worker` accepts, quoted in every error about it.
pub const CRASH_FORMS: &str =
    "K:N with N at least 1, e.g. 2:10 (worker 2 kills itself after recording 10 outcomes)";

/// Worker `worker` raises `SIGKILL` on itself after recording `after`
/// outcomes. A plan for a worker the run does not fork (`K` at or beyond
/// `--conns`, or `--items`), or beyond its partition (more outcomes than
/// it has items, so it would never fire), is refused by the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrashPlan {
    /// Which worker dies.
    pub worker: WorkerId,
    /// How many outcomes it records first.
    pub after: usize,
}

impl CrashPlan {
    /// The count after which `worker` must die, if it is the one.
    pub fn for_worker(plan: Option<CrashPlan>, worker: WorkerId) -> Option<usize> {
        plan.filter(|p| p.worker == worker).map(|p| p.after)
    }
}

/// Why a `--crash-worker` value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad crash plan '{spec}': expected {CRASH_FORMS}")]
pub struct CrashSpecError {
    spec: String,
}

impl FromStr for CrashPlan {
    type Err = CrashSpecError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let bad = || CrashSpecError {
            spec: spec.to_owned(),
        };
        let (worker, after) = spec.split_once(':').ok_or_else(bad)?;
        let after: usize = after.parse().map_err(|_| bad())?;
        // The check runs after each recorded outcome, so "after 0" would
        // never fire; a worker that dies before its first item is `K:1`
        // with a different lesson, not worth a special case.
        if after == 0 {
            return Err(bad());
        }
        Ok(CrashPlan {
            worker: WorkerId::new(worker.parse().map_err(|_| bad())?),
            after,
        })
    }
}

impl fmt::Display for CrashPlan {
    /// The spec form, so a plan can be printed and parsed back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.worker.index(), self.after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_back() {
        let plan: CrashPlan = "2:10".parse().expect("a valid plan");
        assert_eq!(
            plan,
            CrashPlan {
                worker: WorkerId::new(2),
                after: 10
            }
        );
        assert_eq!(plan.to_string(), "2:10");
    }

    #[test]
    fn rejects_with_the_accepted_form() {
        for bad in ["", "2", "2:", ":3", "a:1", "1:-1", "1:2:3", "1:0"] {
            let error = bad.parse::<CrashPlan>().expect_err(bad).to_string();
            assert!(error.contains("K:N"), "{bad}: {error}");
        }
    }

    #[test]
    fn applies_to_its_worker_only() {
        let plan = Some(CrashPlan {
            worker: WorkerId::new(1),
            after: 3,
        });
        assert_eq!(CrashPlan::for_worker(plan, WorkerId::new(1)), Some(3));
        assert_eq!(CrashPlan::for_worker(plan, WorkerId::new(0)), None);
        assert_eq!(CrashPlan::for_worker(None, WorkerId::new(1)), None);
    }
}
