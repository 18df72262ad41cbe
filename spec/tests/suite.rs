//! The suite held to its own rules: the ladder's runtimes pass every
//! scenario they can express, tokio (the reference) meets every
//! expectation in every one of twenty runs, and the scenarios are many,
//! named once, and say why wherever a runtime differs.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use runtime_spec::{
    EXECUTOR, Executor07, FIBERS, Fibers06, Runtime, TOKIO_CT, TOKIO_MT, Tokio, Verdict, all,
    verdict,
};

/// Fails with every failing scenario's two traces (and, for a run under a
/// seed, the seed and the command that replays it).
fn assert_all_pass(runtime: Arc<dyn Runtime>, runs: usize) {
    let failures = failures(&runtime, runs);
    assert!(failures.is_empty(), "{failures}");
}

/// Every failing scenario's two traces; empty if none failed.
fn failures(runtime: &Arc<dyn Runtime>, runs: usize) -> String {
    let mut failures = String::new();
    for scenario in all() {
        for run in 0..runs {
            if let Verdict::Fail { why, traces } = verdict(runtime, &scenario) {
                let seed = match runtime.seed() {
                    Some(seed) => format!(
                        " under seed {seed} (replay: cargo run -p runtime-spec -- --runtime {} --seed {seed} {})",
                        runtime.name(),
                        scenario.name
                    ),
                    None => String::new(),
                };
                failures += &format!(
                    "{} on {}{seed}, run {}: {why}\n{traces}\n",
                    scenario.name,
                    runtime.name(),
                    run + 1
                );
                break;
            }
        }
    }
    failures
}

#[test]
fn fibers_pass_every_scenario_they_can_express() {
    runtime_spec::quiet_scenario_panics();
    assert_all_pass(Arc::new(Fibers06), 1);
}

#[test]
fn executor_passes_every_scenario_it_can_express() {
    runtime_spec::quiet_scenario_panics();
    assert_all_pass(Arc::new(Executor07 { seed: None }), 1);
}

/// How many seeds 07's executor runs the suite under.
const SEEDS: u64 = 8;

/// Each batch of woken tasks in an order drawn from a seed: an expectation
/// that holds only in FIFO order fails under one of them. The seeds are
/// fixed, so a failure here fails the same way on the next run.
#[test]
fn executor_passes_every_scenario_under_eight_seeds() {
    runtime_spec::quiet_scenario_panics();
    let started = Instant::now();
    let mut all_failures = String::new();
    for seed in 0..SEEDS {
        let runtime: Arc<dyn Runtime> = Arc::new(Executor07 { seed: Some(seed) });
        all_failures += &failures(&runtime, 1);
    }
    assert!(all_failures.is_empty(), "{all_failures}");
    eprintln!("07-executor, {SEEDS} seeds: {:?}", started.elapsed());
}

/// An expectation tokio does not meet in every run is a wrong expectation.
#[test]
fn tokio_current_thread_meets_every_expectation_twenty_times() {
    runtime_spec::quiet_scenario_panics();
    let started = Instant::now();
    assert_all_pass(
        Arc::new(Tokio {
            multi_thread: false,
        }),
        20,
    );
    eprintln!("tokio-ct, 20 runs: {:?}", started.elapsed());
}

#[test]
fn tokio_multi_thread_meets_every_expectation_twenty_times() {
    runtime_spec::quiet_scenario_panics();
    let started = Instant::now();
    assert_all_pass(Arc::new(Tokio { multi_thread: true }), 20);
    eprintln!("tokio-mt, 20 runs: {:?}", started.elapsed());
}

#[test]
fn at_least_forty_scenarios_each_named_once() {
    let scenarios = all();
    assert!(scenarios.len() >= 40, "{} scenarios", scenarios.len());
    let mut names = HashSet::new();
    for s in &scenarios {
        assert!(names.insert(s.name), "{} is named twice", s.name);
        assert!(!s.expect.is_empty(), "{} expects nothing", s.name);
    }
    let groups: HashSet<_> = scenarios.iter().map(|s| s.group).collect();
    for group in ["time", "wake", "io", "tasks", "fairness", "primitives"] {
        assert!(groups.contains(group), "no scenario in {group}");
    }
}

#[test]
fn every_difference_names_a_runtime_and_says_why() {
    let known = [FIBERS, EXECUTOR, TOKIO_CT, TOKIO_MT];
    for s in all() {
        for (runtime, why) in &s.differs {
            assert!(
                known.contains(runtime),
                "{}: unknown runtime {runtime}",
                s.name
            );
            assert!(
                ![TOKIO_CT, TOKIO_MT].contains(runtime),
                "{}: tokio is the reference; it does not differ",
                s.name
            );
            assert!(why.len() > 20, "{}: `{why}` is not a reason", s.name);
        }
    }
}
