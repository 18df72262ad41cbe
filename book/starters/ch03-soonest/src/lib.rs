//! Chapter 3, exercise 2: visit the wrapper whose reply is due first.
//!
//! Round-robin blocks on the next wrapper *in turn*, even when another
//! wrapper's reply arrived long ago. Suppose the loop knew when every reply
//! will arrive (in virtual time it does: `VirtualFleet::due`). Then it could
//! always dispose of the wrapper whose reply is due first, and start an item
//! the moment a wrapper is free. It would never wait for one reply while
//! another sits unread, so its head-of-line stall (`VirtualFleet::stalled`)
//! would be zero.
//!
//! A real client cannot know when a reply will come; but it can ask the
//! kernel which connections already *have* one, which amounts to the same
//! thing. That is `select(2)`, and stage 4.
//!
//! The tests run your loop and stage 3's round-robin loop on the same
//! virtual fleet, with even and with uneven latencies.
//!
//! Eight items on three virtual wrappers, in virtual time (no server, no
//! clock); soonest-first never waits on one reply while another is due:
//!
//! ```
//! use std::time::Duration;
//! use roundrobin::{Model, VirtualFleet};
//! use testbed::faults::FaultPlan;
//! use testbed::protocol::Phases;
//!
//! let latency = "bimodal:0.5:50ms:2ms".parse().expect("a latency");
//! let model = Model { latency, faults: FaultPlan::none(), seed: 1, phases: Phases::Two, read_timeout: None };
//! let mut fleet = VirtualFleet::new(model, 3);
//! ch03_soonest::soonest_first(&mut fleet, &testbed::workload::items(8, 1))?;
//! assert_eq!((fleet.rows().len(), fleet.stalled()), (8, Duration::ZERO), "every item done, and no wait on one reply while another was due");
//! # Ok::<(), roundrobin::LoopError>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch03-soonest");

use roundrobin::{Fleet, LoopError, VirtualFleet, WrapperId};
use testbed::workload::Item;

// ANCHOR: exercise
/// The working wrapper whose reply is due first; `None` if none is working.
pub fn soonest(fleet: &VirtualFleet) -> Option<WrapperId> {
    // TODO: which wrappers have a reply on its way, and which of those replies arrives first?
    todo!("which wrappers have a reply on its way, and which of those replies arrives first?")
}

/// Hands out every item and finishes them all, never waiting on a reply
/// while another one is due sooner: start each item on an idle wrapper; when
/// none is idle, dispose of the soonest reply and look again; at the end,
/// dispose of the soonest reply until no wrapper is working.
pub fn soonest_first(fleet: &mut VirtualFleet, items: &[Item]) -> Result<(), LoopError> {
    // TODO: when can an item start, what does the loop do until a wrapper is idle, and how do the last replies come in?
    todo!("when can an item start, what does the loop do until a wrapper is idle, and how do the last replies come in?")
}
// ANCHOR_END: exercise

#[cfg(test)]
mod tests {
    use super::*;
    use roundrobin::{Dispatch, Drain, Model};
    use std::collections::BTreeSet;
    use std::time::Duration;
    use testbed::faults::FaultPlan;
    use testbed::protocol::Phases;
    use testbed::workload::items;

    /// The chapter's workload: 400 items on 20 wrappers, two phases.
    fn model(latency: &str) -> Model {
        Model {
            latency: latency.parse().expect("a valid latency spec"),
            faults: FaultPlan::none(),
            seed: 1,
            phases: Phases::Two,
            read_timeout: None,
        }
    }

    /// (elapsed, stalled) for round-robin and for soonest-first.
    fn both(latency: &str) -> ((Duration, Duration), (Duration, Duration)) {
        let model = model(latency);
        let work = items(400, 1);
        let round_robin = model
            .predict(20, &work, Dispatch::MultiPhase, Drain::RoundRobin)
            .expect("round-robin runs");
        let mut fleet = VirtualFleet::new(model, 20);
        soonest_first(&mut fleet, &work).expect("soonest-first runs");
        assert_eq!(fleet.rows().len(), 400, "every item finished");
        let ids: BTreeSet<u64> = fleet.rows().iter().map(|row| row.id.0).collect();
        assert_eq!(ids.len(), 400, "and each one once");
        (
            (round_robin.clock(), round_robin.stalled()),
            (fleet.clock(), fleet.stalled()),
        )
    }

    #[test]
    fn soonest_is_the_earliest_due() {
        let mut fleet = VirtualFleet::new(model("bimodal:0.5:50ms:2ms"), 4);
        assert_eq!(
            soonest(&fleet),
            None,
            "with nobody working, no reply is due"
        );
        for (w, item) in items(3, 1).iter().enumerate() {
            fleet
                .start(WrapperId(w), item)
                .expect("idle wrappers accept");
        }
        let due = |w: usize| fleet.due(WrapperId(w)).expect("working");
        let pick = soonest(&fleet).expect("three are working");
        assert!(
            (0..3).all(|w| due(pick.0) <= due(w)),
            "soonest should pick the wrapper whose reply is due first, not {pick:?}: {fleet:?}"
        );
    }

    #[test]
    fn soonest_first_never_stalls() {
        for latency in ["5ms", "bimodal:0.1:50ms:2ms", "exp:5ms"] {
            let (_, (_, stalled)) = both(latency);
            assert_eq!(
                stalled,
                Duration::ZERO,
                "soonest-first should never wait on one reply while another is due sooner ({latency})"
            );
        }
    }

    #[test]
    fn with_even_latency_round_robin_was_already_as_good() {
        let ((rr, rr_stalled), (soonest, _)) = both("5ms");
        assert_eq!(
            rr_stalled,
            Duration::ZERO,
            "with even latency round-robin should not stall either"
        );
        assert_eq!(
            soonest, rr,
            "with even latency soonest-first should take exactly as long as round-robin"
        );
    }

    #[test]
    fn with_uneven_latency_it_is_much_faster() {
        let ((rr, rr_stalled), (soonest, _)) = both("bimodal:0.1:50ms:2ms");
        assert!(
            rr_stalled > Duration::ZERO,
            "with uneven latency round-robin should stall"
        );
        assert!(
            soonest.as_secs_f64() < 0.5 * rr.as_secs_f64(),
            "soonest-first should take less than half round-robin's time: {soonest:?} vs {rr:?}"
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;
        use testbed::testing::proptest_config;

        /// Latencies from even to very uneven, as specs.
        fn latency() -> impl Strategy<Value = String> {
            prop_oneof![
                (1u64..20).prop_map(|ms| format!("{ms}ms")),
                (1u64..20, 20u64..80).prop_map(|(a, b)| format!("uniform:{a}ms..{b}ms")),
                (1u32..9, 20u64..100, 1u64..5)
                    .prop_map(|(p, slow, fast)| format!("bimodal:0.{p}:{slow}ms:{fast}ms")),
            ]
        }

        fn fleet(latency: &str, seed: u64, wrappers: usize) -> VirtualFleet {
            let mut model = model(latency);
            model.seed = seed;
            VirtualFleet::new(model, wrappers)
        }

        proptest! {
            #![proptest_config(proptest_config(64))]

            #[test]
            fn soonest_matches_the_earliest_due(
                latency in latency(),
                seed in any::<u64>(),
                working in proptest::collection::vec(any::<bool>(), 1..9),
            ) {
                let mut fleet = fleet(&latency, seed, working.len());
                let work = items(working.len(), seed);
                for (w, item) in work.iter().enumerate().filter(|&(w, _)| working[w]) {
                    fleet.start(WrapperId(w), item).expect("idle wrappers accept");
                }
                let earliest = (0..working.len()).filter_map(|w| fleet.due(WrapperId(w))).min();
                let pick = soonest(&fleet);
                prop_assert_eq!(
                    pick.and_then(|w| fleet.due(w)),
                    earliest,
                    "{} ({}), working wrappers {:?}: soonest picked {:?}, whose reply is not the earliest due (None only when nobody works)",
                    latency, seed, working, pick
                );
            }

            #[test]
            fn soonest_first_finishes_every_item_once_without_a_stall(
                latency in latency(),
                seed in any::<u64>(),
                wrappers in 1usize..8,
                count in 0usize..40,
            ) {
                let mut fleet = fleet(&latency, seed, wrappers);
                let work = items(count, seed);
                soonest_first(&mut fleet, &work).expect("soonest-first runs");
                let mut ids: Vec<u64> = fleet.rows().iter().map(|row| row.id.0).collect();
                ids.sort_unstable();
                let expected: Vec<u64> = work.iter().map(|item| item.id.0).collect();
                prop_assert_eq!(
                    ids,
                    expected,
                    "{} items on {} wrappers ({}, seed {}): each item should finish exactly once",
                    count, wrappers, latency, seed
                );
                prop_assert_eq!(
                    fleet.stalled(),
                    Duration::ZERO,
                    "{} items on {} wrappers ({}, seed {}): the loop waited on one reply while another was due sooner",
                    count, wrappers, latency, seed
                );
                prop_assert!(
                    (0..wrappers).all(|w| !fleet.is_working(WrapperId(w))),
                    "{} items on {} wrappers: a wrapper is still working when the loop returns",
                    count, wrappers
                );
            }
        }
    }
}
