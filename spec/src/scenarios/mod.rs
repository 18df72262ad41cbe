//! The behaviours, by group. Each is a script for the root task and the
//! trace it must record; times are milliseconds, so that the whole suite
//! runs in seconds.

mod fairness;
mod io;
mod primitives;
mod tasks;
mod time;
mod wake;

use crate::script::{RuntimeName, Scenario, Step};
use crate::trace::Expect;

/// Every scenario, group by group.
pub fn all() -> Vec<Scenario> {
    let mut all = Vec::new();
    all.extend(time::scenarios());
    all.extend(wake::scenarios());
    all.extend(io::scenarios());
    all.extend(tasks::scenarios());
    all.extend(fairness::scenarios());
    all.extend(primitives::scenarios());
    all
}

/// A scenario that every runtime can express.
fn scenario(
    name: &'static str,
    group: &'static str,
    steps: Vec<Step>,
    expect: Vec<Expect>,
) -> Scenario {
    Scenario {
        name,
        group,
        steps,
        expect,
        differs: Vec::new(),
    }
}

impl Scenario {
    /// Says that `runtime` cannot express this scenario, and why.
    fn differs(mut self, runtime: RuntimeName, why: &'static str) -> Scenario {
        self.differs.push((runtime, why));
        self
    }
}

/// Why a fiber runtime cannot abort: a fiber is a stack, not a value.
const FIBERS_NO_ABORT: &str = "a fiber is a running stack, not a value to drop: nothing outside it can cancel it, it ends by returning";
