//! The seeded order finds what FIFO order hides. A scenario whose
//! expectation leans on the order tasks were woken in (three tasks start
//! in the order they were spawned, written as a plain sequence rather than
//! `one_thread_order`) passes on 07's executor in FIFO order, run after
//! run; under a few seeds it fails, the failure names its seed, and that
//! seed gives the same trace again.

use std::sync::Arc;

use runtime_spec::Step::{Join, Log, Spawn};
use runtime_spec::{Executor07, Runtime, Scenario, Trace, Verdict, ev, run};

/// Three tasks spawned in turn, each logging once, joined in turn; the
/// expectation says they run in spawn order, which only FIFO promises.
fn spawn_order_taken_for_granted() -> Scenario {
    Scenario {
        name: "spawn-order-taken-for-granted",
        group: "tasks",
        steps: vec![
            Spawn("a", vec![Log("a ran")]),
            Spawn("b", vec![Log("b ran")]),
            Spawn("c", vec![Log("c ran")]),
            Join("a"),
            Join("b"),
            Join("c"),
        ],
        expect: ["a ran", "b ran", "c ran", "a ok", "b ok", "c ok"]
            .map(ev)
            .into(),
        differs: Vec::new(),
    }
}

/// The events of a trace, without their times (which no two runs share).
fn events(trace: &Trace) -> Vec<&str> {
    trace.events.iter().map(|(e, _)| e.as_str()).collect()
}

#[test]
fn an_expectation_only_fifo_order_meets_fails_under_a_seed_that_replays_it() {
    let scenario = spawn_order_taken_for_granted();
    let fifo: Arc<dyn Runtime> = Arc::new(Executor07 { seed: None });
    for _ in 0..3 {
        let (verdict, trace) = run(&fifo, &scenario);
        assert_eq!(verdict, Verdict::Pass, "FIFO order meets it: {trace:?}");
    }
    let failing: Vec<(u64, Trace)> = (0..8)
        .filter_map(|seed| {
            let seeded: Arc<dyn Runtime> = Arc::new(Executor07 { seed: Some(seed) });
            match run(&seeded, &scenario) {
                (Verdict::Fail { why, traces }, trace) => {
                    eprintln!("seed {seed}: {why}\n{traces}");
                    Some((seed, trace))
                }
                _ => None,
            }
        })
        .collect();
    assert!(
        !failing.is_empty(),
        "no seed of eight found the order FIFO takes for granted"
    );
    for (seed, trace) in &failing {
        let again: Arc<dyn Runtime> = Arc::new(Executor07 { seed: Some(*seed) });
        let (verdict, replayed) = run(&again, &scenario);
        assert!(
            matches!(verdict, Verdict::Fail { .. }),
            "seed {seed} failed once and passed on replay"
        );
        assert_eq!(
            events(&replayed),
            events(trace),
            "seed {seed} replays the same trace"
        );
    }
}
