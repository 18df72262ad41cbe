//! The grade: the behaviour suite's scenarios, stage by stage, against
//! your runtime. Each stage is a test of its own, and runs only once the
//! stages before it pass: start with `cargo test -p ch08-runtime stage_1`.
//! A failure names the stage and the scenario, and prints the trace it
//! expected beside the one your runtime recorded (`!` marks where they part).

// When the stages fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch08-runtime");

use ch08_runtime::Runtime;

/// Passes if stage `number` (and every stage before it) passes.
fn grade(number: usize) {
    match runtime_spec::grade::stage::<Runtime>(number) {
        Ok(summary) => eprintln!("{summary}"),
        Err(why) => panic!("{why}"),
    }
}

#[test]
fn stage_1_block_on() {
    grade(1);
}

#[test]
fn stage_2_spawn_and_join() {
    grade(2);
}

#[test]
fn stage_3_timers() {
    grade(3);
}

#[test]
fn stage_4_io() {
    grade(4);
}

#[test]
fn stage_5_wakes_from_other_threads() {
    grade(5);
}

#[test]
fn stage_6_abort_and_drop() {
    grade(6);
}

#[test]
fn stage_7_fairness_under_load() {
    grade(7);
}
