//! The pool's invariants, over random settings and fault seeds (proptest):
//!
//! - never more than `size` connections, open or opening;
//! - every call exactly one outcome, and a call that ran gets exactly what
//!   the server forced (so no late reply ever answered another call);
//! - queued checkouts are granted connections in FIFO order;
//! - no checkout is granted a connection after its checkout timeout, and
//!   none gives up before it.

use std::collections::BTreeMap;
use std::time::Duration;

use pool::journal::{Entry, Happening};
use pool::{Backend, Config, FinishedCall};
use proptest::prelude::*;
use testbed::faults::FaultPlan;
use testbed::outcome::ErrorKind;
use testbed::protocol::Phases;
use testbed::workload::items;

use crate::util::{bounded, new_pool, server};

const FAULTS: &str = "nak=0.05,ko=0.05,hang=0.03,drop=0.04,garbage=0.04,trickle=0.1";

/// Far above the 1-4 ms service times, so that only a `hang` times out,
/// even on a loaded machine where a server thread may wake tens of
/// milliseconds late.
const READ_TIMEOUT: Duration = Duration::from_millis(250);

/// One random run: the pool's settings and the work.
#[derive(Debug, Clone)]
struct Case {
    seed: u64,
    size: usize,
    min_idle: usize,
    max_uses: Option<u64>,
    idle_timeout: Option<Duration>,
    checkout_timeout: Duration,
    reuse_after_error: bool,
    backend: Backend,
    /// Calls per checkout, checkouts in the order they are asked for.
    checkouts: Vec<usize>,
}

prop_compose! {
    fn case()(size in 1usize..=4)(
        size in Just(size),
        seed in 0u64..1000,
        min_idle in 0..=size,
        max_uses in proptest::option::of(1u64..=4),
        idle_ms in proptest::option::of(1u64..=20),
        checkout_ms in 15u64..=120,
        reuse_after_error in any::<bool>(),
        backend in proptest::sample::select(Backend::ALL.to_vec()),
        checkouts in proptest::collection::vec(1usize..=3, 3..=12),
    ) -> Case {
        Case {
            seed,
            size,
            min_idle,
            max_uses,
            idle_timeout: idle_ms.map(Duration::from_millis),
            checkout_timeout: Duration::from_millis(checkout_ms),
            reuse_after_error,
            backend,
            checkouts,
        }
    }
}

/// Runs a case: every checkout asked for at once (so the queue is long and
/// some give up), each with its calls; the handles are dropped as soon as
/// the calls are made.
fn run(case: &Case) -> (Vec<FinishedCall>, Vec<Entry>, Vec<Vec<u64>>) {
    let server = server("uniform:1ms..4ms", FAULTS, case.seed);
    let addr = server.addr();
    let case = case.clone();
    bounded(move || {
        let mut pool = new_pool(case.backend, addr, case.size, |c: &mut Config| {
            c.read_timeout = Some(READ_TIMEOUT);
            c.knobs.min_idle = case.min_idle;
            c.knobs.max_uses = case.max_uses;
            c.knobs.idle_timeout = case.idle_timeout;
            c.knobs.checkout_timeout = Some(case.checkout_timeout);
            c.knobs.reuse_after_error = case.reuse_after_error;
        });
        pool.keep_journal();
        let total: usize = case.checkouts.iter().sum();
        let mut work = items(total, 1).into_iter();
        let mut plan = Vec::new();
        for &calls in &case.checkouts {
            let checkout = pool.checkout().expect("checkout");
            let mut ids = Vec::new();
            for item in work.by_ref().take(calls) {
                ids.push(item.id.0);
                pool.call(&checkout, item).expect("call");
            }
            plan.push(ids);
        }
        let mut done = Vec::new();
        pool.drain(&mut done).expect("drain");
        drop(server);
        (done, pool.journal().to_vec(), plan)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn the_pool_keeps_its_invariants(case in case()) {
        let (done, journal, plan) = run(&case);
        let faults: FaultPlan = FAULTS.parse().expect("a fault spec");

        // Every call exactly one outcome.
        let mut seen = BTreeMap::new();
        for c in &done {
            *seen.entry(c.item.0).or_insert(0) += 1;
        }
        let made: Vec<u64> = plan.iter().flatten().copied().collect();
        prop_assert_eq!(seen.len(), made.len());
        prop_assert!(seen.values().all(|&n| n == 1), "an item finished twice");
        prop_assert!(made.iter().all(|id| seen.contains_key(id)), "an item was lost");

        // A call that ran got exactly what the server forced; one that did
        // not run failed with pool_timeout, or with the fatal error of an
        // earlier call on its checkout.
        let work = items(made.len(), 1);
        for c in &done {
            let item = &work[c.item.0 as usize];
            let forced = faults.expected(case.seed, item.id, Phases::Two);
            let got = c.outcome.as_ref().err().map(|f| f.kind);
            if c.slot.is_some() {
                prop_assert_eq!(got, forced, "item {} ran", item.id);
                if let Ok(hash) = &c.outcome {
                    prop_assert_eq!(*hash, item.expected_result());
                }
            } else {
                let earlier_fatal = done.iter().any(|o| {
                    o.checkout == c.checkout
                        && o.slot.is_some()
                        && o.outcome.as_ref().err().map(|f| f.kind) == got
                });
                prop_assert!(
                    got == Some(ErrorKind::PoolTimeout) || earlier_fatal,
                    "item {} never ran, yet failed with {:?}", item.id, got
                );
            }
        }

        // Never more than `size` connections, open or opening.
        let mut live: i64 = 0;
        for entry in &journal {
            match entry.what {
                Happening::Connecting(_) => live += 1,
                Happening::Closed { .. } | Happening::ConnectFailed { slot: Some(_), .. } => live -= 1,
                _ => {}
            }
            prop_assert!(live <= case.size as i64, "{} connections", live);
        }

        // Granted in FIFO order; never after the checkout timeout; never
        // given up before it.
        let mut last = None;
        for entry in &journal {
            match entry.what {
                Happening::Assigned { checkout, waited, .. } => {
                    prop_assert!(last < Some(checkout), "{:?} after {:?}", checkout, last);
                    last = Some(checkout);
                    prop_assert!(waited < case.checkout_timeout, "granted after {:?}", waited);
                }
                Happening::GaveUp { waited, kind, .. } => {
                    prop_assert!(waited >= case.checkout_timeout, "gave up after {:?}", waited);
                    prop_assert_eq!(kind, ErrorKind::PoolTimeout);
                }
                _ => {}
            }
        }
    }
}
