//! Each lint fires on a small future built to go wrong that way, names the
//! task and where it was spawned; a normal run of the stage has none; and
//! a recording executor says who woke whom.

use std::cell::RefCell;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant};

use executor::{Executor, Futures, Lint, Semaphore, Spawned};
use testbed::cli::Settings;
use testbed::harness::execute;
use testbed::stage::{Scenario, Stage};
use testbed::store::{DbTarget, Store};
use testbed::tasks::WakeBy;
use testbed::watchdog::lock::thread_usage;
use testbed::workload::items;

use crate::util::{Forgetful, within};

/// Runs `make`'s future on a fresh executor (prepared by `prepare`),
/// within the tests' deadline; returns whether `block_on` finished, and
/// the lints.
fn lints_of<F: Future>(
    prepare: impl FnOnce(&Executor) + Send + 'static,
    make: impl FnOnce(&Executor) -> F + Send + 'static,
) -> (bool, Vec<Lint>) {
    within("lints", move || {
        let executor = Executor::new().expect("an executor");
        prepare(&executor);
        let future = make(&executor);
        let finished = executor.block_on(future).is_ok();
        (finished, executor.lints())
    })
}

fn line_of(spawned: &Spawned) -> Option<u32> {
    spawned
        .at
        .filter(|at| at.file().ends_with("lints.rs"))
        .map(|at| at.line())
}

/// Computes for `cpu` of CPU time: no sleep, no I/O, and however busy the
/// machine, the thread really used that much.
fn busy(cpu: Duration) {
    let used = || thread_usage().expect("Linux counts a thread's CPU").cpu;
    let start = used();
    while used() - start < cpu {
        std::hint::spin_loop();
    }
}

/// Pending `times` times, waking itself before each: a spin.
fn spin(times: u32) -> impl Future<Output = ()> {
    let mut left = times;
    poll_fn(move |cx| {
        if left == 0 {
            return Poll::Ready(());
        }
        left -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    })
}

#[test]
fn polls_that_hold_the_thread_30_ms_are_long_polls_naming_their_spawn() {
    let (finished, lints) = lints_of(
        |_| {},
        |executor| {
            let handle = executor.handle();
            let nap = handle.clone();
            async move {
                // Two long polls, a turn apart: the first may meet a thread
                // the kernel preempted earlier, which it cannot judge; the
                // second is judged by what the kernel counted in its turn.
                let twice = async move {
                    busy(Duration::from_millis(30));
                    nap.sleep(Duration::from_millis(1)).await;
                    busy(Duration::from_millis(30));
                };
                let (line, task) = (line!(), handle.spawn(twice));
                task.await.expect("it ends");
                line
            }
        },
    );
    assert!(finished, "the run ends");
    let [
        Lint::LongPoll {
            task, took, count, ..
        },
    ] = &lints[..]
    else {
        panic!("one long poll expected, got {lints:?}");
    };
    assert!(*took >= Duration::from_millis(30), "{took:?}");
    assert!(
        (1..=2).contains(count),
        "two polls held the thread: {count}"
    );
    assert!(line_of(task).is_some(), "spawned here: {task}");
    let text = lints[0].to_string();
    assert!(
        text.contains("one poll of task 1 (spawned at") && text.contains("lints.rs:"),
        "{text}"
    );

    // The same poll under a threshold it does not reach: no lint.
    let (_, lints) = lints_of(
        |executor| executor.set_long_poll_threshold(Duration::from_secs(5)),
        |_| async { busy(Duration::from_millis(30)) },
    );
    assert!(lints.is_empty(), "{lints:?}");
}

#[test]
fn a_task_that_wakes_itself_5000_times_in_a_row_spins() {
    let (finished, lints) = lints_of(
        |_| {},
        |executor| {
            let task = executor.spawn(spin(5_000));
            async move { task.await.expect("it ends") }
        },
    );
    assert!(finished);
    let [Lint::SelfWakes { task, streak }] = &lints[..] else {
        panic!("one self-wake lint expected, got {lints:?}");
    };
    assert_eq!((task.task.to_string().as_str(), *streak), ("task 1", 5_000));
    assert!(line_of(task).is_some(), "{task}");

    // Yields between timer waits: never a thousand self-wakes in a row.
    let (_, lints) = lints_of(
        |_| {},
        |executor| {
            let handle = executor.handle();
            async move {
                for _ in 0..20 {
                    spin(100).await;
                    handle.sleep(Duration::from_micros(10)).await;
                }
            }
        },
    );
    assert!(lints.is_empty(), "{lints:?}");
}

/// The line of the spawn of a task that never ends.
static SPAWN_LINE: AtomicU32 = AtomicU32::new(0);

#[test]
fn a_stuck_task_that_kept_no_waker_is_named_by_its_spawn_line() {
    let (finished, lints) = lints_of(
        |_| {},
        |executor| {
            let handle = executor.handle();
            async move {
                let (line, task) = (line!(), handle.spawn(Forgetful));
                SPAWN_LINE.store(line, Ordering::Relaxed);
                task.await.expect("never")
            }
        },
    );
    assert!(!finished, "the run is stuck, and fails as before");
    let [Lint::NoWaker { task }] = &lints[..] else {
        panic!("one no-waker lint expected, got {lints:?}");
    };
    let line = SPAWN_LINE.load(Ordering::Relaxed);
    assert_eq!(line_of(task), Some(line), "{task}");
    let text = lints[0].to_string();
    assert!(
        text.contains("kept no waker") && text.contains("task 1"),
        "{text}"
    );
}

#[test]
fn a_task_waiting_for_a_permit_it_holds_in_a_future_it_no_longer_polls_is_a_futurelock() {
    let (finished, lints) = lints_of(
        |_| {},
        |executor| {
            let handle = executor.handle();
            let one = Semaphore::new(&handle, 1);
            let task = handle.clone().spawn(async move {
                // A select by hand: the first branch takes the permit and
                // works for 10 ms; the second, 1 ms, wins.
                let mut holder = Box::pin({
                    let (one, handle) = (one.clone(), handle.clone());
                    async move {
                        let _permit = one.acquire().await;
                        handle.sleep(Duration::from_millis(10)).await;
                    }
                });
                let mut quick = pin!(handle.sleep(Duration::from_millis(1)));
                poll_fn(|cx| {
                    if holder.as_mut().poll(cx).is_ready() {
                        return Poll::Ready(());
                    }
                    quick.as_mut().poll(cx)
                })
                .await;
                // The loser is kept, not polled, not dropped: its permit
                // stays taken, and this waits for it.
                let _again = one.acquire().await;
                drop(holder);
            });
            async move { task.await.expect("never") }
        },
    );
    assert!(!finished, "the run is stuck");
    let locks: Vec<&Lint> = lints
        .iter()
        .filter(|lint| matches!(lint, Lint::Futurelock { .. }))
        .collect();
    let [
        Lint::Futurelock {
            waiter,
            holder,
            primitive,
        },
    ] = locks[..]
    else {
        panic!("one futurelock expected, got {lints:?}");
    };
    assert_eq!((waiter.task, holder.task), (waiter.task, waiter.task));
    assert_eq!(waiter.task.to_string(), "task 1");
    assert_eq!(*primitive, "a semaphore permit");
    assert!(line_of(waiter).is_some(), "{waiter}");
    assert!(
        locks[0].to_string().contains("that it holds itself"),
        "{}",
        locks[0]
    );
}

#[test]
fn five_hundred_tasks_for_four_conns_are_many_tasks_and_twenty_are_not() {
    let run = |tasks: usize| {
        lints_of(
            |executor| executor.set_conns(4),
            move |executor| {
                let handle = executor.handle();
                async move {
                    let all: Vec<_> = (0..tasks)
                        .map(|_| {
                            let handle = handle.clone();
                            handle
                                .clone()
                                .spawn(async move { handle.sleep(Duration::from_millis(1)).await })
                        })
                        .collect();
                    for task in all {
                        task.await.expect("it ends");
                    }
                }
            },
        )
        .1
    };
    let lints = run(500);
    assert_eq!(
        lints,
        [Lint::ManyTasks {
            peak: 500,
            conns: 4
        }]
    );
    assert!(lints[0].to_string().contains("peaked at 500 for --conns 4"));
    assert_eq!(run(20), [], "20 is within 4 × 4 + 16");
}

#[test]
fn a_refcell_borrow_held_across_a_sleep_is_named_when_another_task_trips_on_it() {
    let (finished, lints) = lints_of(
        // A panic's backtrace, printed in the poll, can take 100 ms in a
        // debug build: that poll is long, but it is not this test's lint.
        |executor| executor.set_long_poll_threshold(Duration::from_secs(5)),
        |executor| {
            let handle = executor.handle();
            let shared = Rc::new(RefCell::new(0));
            let (holder, other) = (shared.clone(), shared);
            let sleeper = handle.clone();
            // The bug, on purpose.
            #[allow(clippy::await_holding_refcell_ref)]
            let first = handle.spawn(async move {
                let mut value = holder.borrow_mut();
                sleeper.sleep(Duration::from_millis(5)).await;
                *value += 1;
            });
            let second = handle.spawn(async move { *other.borrow() });
            async move {
                let tripped = second.await;
                first.await.expect("the holder ends");
                tripped
            }
        },
    );
    assert!(finished);
    let [Lint::BorrowAcrossAwait { task, message }] = &lints[..] else {
        panic!("one borrow lint expected, got {lints:?}");
    };
    assert_eq!(task.task.to_string(), "task 2");
    assert!(message.contains("already mutably borrowed"), "{message}");
    assert!(
        lints[0]
            .to_string()
            .contains("RefCell borrow was held across an .await")
    );
}

/// The stage as it is, at several latencies and with faults: nothing to
/// warn about, in the lints or the report.
#[test]
fn a_normal_run_of_the_stage_has_no_lint() {
    for (latency, faults) in [
        ("0ms", "none"),
        ("1ms", "none"),
        ("3ms", "nak=0.05,ko=0.05,drop=0.02,garbage=0.02,trickle=0.1"),
    ] {
        let settings = Settings {
            items: 300,
            conns: 20,
            latency: latency.parse().expect("a valid spec"),
            faults: faults.parse().expect("a valid spec"),
            read_timeout: Some(Duration::from_secs(2)),
            ..Settings::default()
        };
        let execution = execute(&Futures::default(), &settings).expect("the run ends");
        let report = &execution.report;
        assert_eq!(report.lost + report.wrong, 0, "{report}");
        assert_eq!(
            report.lints,
            Vec::<String>::new(),
            "{latency} {faults}: {report}"
        );
    }
}

/// Every cause of a wake, recorded: the spawn, the timer, the task's own
/// poll, another task, another thread.
#[test]
fn a_recording_executor_says_who_woke_whom() {
    let trace = within("recording", || {
        let epoch = Instant::now();
        let executor = Executor::new().expect("an executor");
        executor.record_tasks();
        let handle = executor.handle();
        let task = handle.clone().spawn(async move {
            handle.sleep(Duration::from_millis(1)).await;
            spin(1).await;
            // Woken from a thread of its own.
            let mut sent = None;
            poll_fn(|cx| match sent.take() {
                Some(thread) => {
                    std::thread::JoinHandle::join(thread).expect("the waker thread ends");
                    Poll::Ready(())
                }
                None => {
                    let waker = cx.waker().clone();
                    sent = Some(std::thread::spawn(move || waker.wake()));
                    Poll::Pending
                }
            })
            .await;
        });
        executor.block_on(task).expect("it ends").expect("no panic");
        executor.task_trace(epoch).expect("recorded")
    });
    let by: Vec<(u64, WakeBy)> = trace.wakes.iter().map(|w| (w.task, w.by)).collect();
    for expected in [
        (0, WakeBy::Spawn),
        (1, WakeBy::Spawn),
        (1, WakeBy::Timer),
        (1, WakeBy::Itself),
        (1, WakeBy::Thread),
        (0, WakeBy::Task(1)),
    ] {
        assert!(by.contains(&expected), "{expected:?} in {by:?}");
    }
    // Each poll of task 1 names the wake that queued it, a wake of task 1.
    let polls: Vec<_> = trace.polls.iter().filter(|p| p.task == 1).collect();
    assert_eq!(polls.len(), 4, "spawn, timer, itself, thread: {polls:?}");
    for poll in &polls {
        let cause = poll.cause.expect("every wake was kept") as usize;
        assert_eq!(trace.wakes[cause].task, 1, "{poll:?}");
    }
    assert!(polls.last().is_some_and(|p| p.ready));
    assert!(!trace.counters.is_empty(), "counters once per turn");
}

/// Against a server, the sockets' wakes are `Io`, and the stage hands
/// the trace to its report when the scenario asks for it.
#[test]
fn a_recorded_run_of_the_stage_has_io_wakes() {
    let trace = within("recorded stage", || {
        let server = crate::util::server(Duration::from_millis(1));
        let db = DbTarget::memory();
        // Made first, and kept open, so the in-memory database outlives the run.
        let _keeper = Store::create(&db, Instant::now()).expect("a results database");
        let mut scenario = Scenario::new(items(20, 1), server.addr(), db);
        scenario.conns = 4;
        scenario.record_tasks = true;
        let stats = Futures::default().run(&scenario).expect("the run ends");
        assert!(stats.lints().is_empty(), "{:?}", stats.lints());
        stats.tasks().cloned().expect("the trace is handed over")
    });
    let io = trace.wakes.iter().filter(|w| w.by == WakeBy::Io).count();
    assert!(io >= 20, "a reply per item at least: {io} I/O wakes");
    assert_eq!(trace.polls.iter().filter(|p| p.ready).count(), 20 + 1);
}
