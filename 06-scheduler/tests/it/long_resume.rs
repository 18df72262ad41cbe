//! A fiber that keeps the thread: the run's summary names its longest
//! resume, and one that only waits is never named.

use std::time::Duration;

use scheduler::Scheduler;
use testbed::watchdog::lock::thread_usage;

use crate::util::run;

/// Computes for `cpu` of CPU time: no sleep, no I/O, no switch.
fn busy(cpu: Duration) {
    let before = thread_usage().expect("Linux counts it").cpu;
    while thread_usage().expect("Linux counts it").cpu - before < cpu {
        std::hint::black_box(0u64);
    }
}

#[test]
fn a_fiber_that_computes_30_ms_between_switches_is_a_long_resume() {
    let sched = Scheduler::new().expect("a scheduler");
    let nap = sched.clone();
    sched
        .spawn(move || {
            // Twice, a switch apart: the first may meet a thread the
            // kernel preempted earlier, which it cannot judge.
            busy(Duration::from_millis(30));
            nap.sleep(Duration::from_millis(1));
            busy(Duration::from_millis(30));
        })
        .expect("spawn");
    let summary = run(&sched);
    let long = summary.long_resume.expect("a long resume");
    assert!(long.took >= Duration::from_millis(30), "{long:?}");
    assert!((1..=2).contains(&long.count), "{long:?}");
    let text = long.to_string();
    assert!(
        text.starts_with("one resume of fiber ") && text.contains("took"),
        "{text}"
    );
}

#[test]
fn fibers_that_wait_and_switch_are_never_long() {
    let sched = Scheduler::new().expect("a scheduler");
    for _ in 0..20 {
        let nap = sched.clone();
        sched
            .spawn(move || {
                for _ in 0..5 {
                    nap.sleep(Duration::from_millis(2));
                }
            })
            .expect("spawn");
    }
    assert_eq!(run(&sched).long_resume, None);
}
