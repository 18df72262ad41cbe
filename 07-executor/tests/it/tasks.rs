//! Tasks: spawned, interleaved at their awaits, joined; a panic isolated;
//! `block_on` refused from inside a task; tasks dropped with the executor.

use std::cell::RefCell;
use std::future::{Future, poll_fn};
use std::rc::Rc;
use std::task::Poll;

use executor::{Executor, JoinError, RunError};

use crate::util::{Forgetful, block_on, within};

/// Lets the other tasks run once: pending the first time, having woken
/// itself, ready the second.
fn yield_now() -> impl Future<Output = ()> {
    let mut yielded = false;
    poll_fn(move |cx| {
        if yielded {
            return Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    })
}

#[test]
fn tasks_interleave_at_their_awaits_and_join_with_their_output() {
    let (log, outputs) = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let log = Rc::new(RefCell::new(Vec::new()));
            let mut tasks = Vec::new();
            for name in ["a", "b"] {
                let log = log.clone();
                tasks.push(handle.spawn(async move {
                    log.borrow_mut().push(format!("{name}1"));
                    yield_now().await;
                    log.borrow_mut().push(format!("{name}2"));
                    name.len() * 10
                }));
            }
            let mut outputs = Vec::new();
            for task in tasks {
                outputs.push(task.await.expect("no panic"));
            }
            let log = log.borrow().clone();
            (log, outputs)
        }
    });
    assert_eq!(log, ["a1", "b1", "a2", "b2"]);
    assert_eq!(outputs, [10, 10]);
}

#[test]
fn a_panicking_task_does_not_stop_the_others() {
    let (results, panics) = within("panics", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let results = executor
            .block_on(async move {
                let tasks: Vec<_> = (0..3)
                    .map(|n| {
                        handle.spawn(async move {
                            yield_now().await;
                            assert!(n != 1, "task {n} gives up");
                            n
                        })
                    })
                    .collect();
                let mut results = Vec::new();
                for task in tasks {
                    results.push(task.await.map_err(|e| e.to_string()));
                }
                results
            })
            .expect("the run finishes");
        (results, executor.panics())
    });
    assert_eq!(results[0], Ok(0));
    assert_eq!(results[2], Ok(2));
    let error = results[1].as_ref().expect_err("task 1 panicked");
    assert!(error.ends_with("panicked: task 1 gives up"), "{error}");
    assert_eq!(panics.len(), 1);
    assert_eq!(panics[0].message, "task 1 gives up");
}

#[test]
fn block_on_inside_a_task_is_refused() {
    let refused = within("nested", || {
        let executor = Rc::new(Executor::new().expect("an executor"));
        let inner = executor.clone();
        executor
            .block_on(async move { matches!(inner.block_on(async {}), Err(RunError::Nested)) })
            .expect("the outer run finishes")
    });
    assert!(refused);
}

/// Sets its flag when dropped: a future's destructors ran.
struct Flag(Rc<RefCell<bool>>);

impl Drop for Flag {
    fn drop(&mut self) {
        *self.0.borrow_mut() = true;
    }
}

/// Dropping the executor drops its tasks: their destructors run (that is
/// how a task is cancelled), and a handle to one says so.
#[test]
fn dropping_the_executor_cancels_its_tasks() {
    let (dropped, joined) = within("cancel", || {
        let dropped = Rc::new(RefCell::new(false));
        let executor = Executor::new().expect("an executor");
        let flag = Flag(dropped.clone());
        let mut task = executor.spawn(async move {
            let _flag = flag;
            Forgetful.await;
        });
        // Poll it once, so it is pending with its flag alive.
        let first = executor.block_on(poll_fn(|cx| {
            Poll::Ready(std::pin::Pin::new(&mut task).poll(cx).is_pending())
        }));
        assert_eq!(first.ok(), Some(true));
        drop(executor);
        let joined = std::pin::pin!(task)
            .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()));
        (*dropped.borrow(), joined)
    });
    assert!(dropped, "the task's future was dropped");
    assert_eq!(joined, Poll::Ready(Err(JoinError::Cancelled)));
}

/// A `Handle` can outlive its executor; a task spawned on it then would
/// never run, so it ends at once, and its handle says why.
#[test]
fn a_spawn_after_the_executor_is_dropped_ends_at_once_and_says_why() {
    let (dropped, joined) = within("spawn after drop", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        drop(executor);
        let dropped = Rc::new(RefCell::new(false));
        let flag = Flag(dropped.clone());
        let task = handle.spawn(async move {
            let _flag = flag;
        });
        let joined = std::pin::pin!(task)
            .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()));
        (*dropped.borrow(), joined)
    });
    assert!(dropped, "the future was dropped at once");
    assert_eq!(joined, Poll::Ready(Err(JoinError::NoExecutor)));
}

/// `spawn` only queues the task: its first poll is on the loop's next turn.
#[test]
fn a_spawned_task_first_runs_on_the_loops_next_turn() {
    let (before, after) = within("spawn", || {
        let executor = Executor::new().expect("an executor");
        let ran = Rc::new(RefCell::new(false));
        let flag = ran.clone();
        let task = executor.spawn(async move {
            *flag.borrow_mut() = true;
        });
        let before = *ran.borrow();
        executor
            .block_on(task)
            .expect("the run ends")
            .expect("no panic");
        let after = *ran.borrow();
        (before, after)
    });
    assert!(!before, "spawn polled nothing");
    assert!(after, "the loop did");
}

/// A task whose `JoinHandle` is dropped runs on, detached; its panic is
/// still listed by the executor.
#[test]
fn a_detached_task_runs_on_and_its_panic_is_still_listed() {
    let (ran, panics) = within("detached", || {
        let executor = Executor::new().expect("an executor");
        let ran = Rc::new(RefCell::new(false));
        let flag = ran.clone();
        drop(executor.spawn(async move {
            yield_now().await;
            *flag.borrow_mut() = true;
            panic!("the detached task fails");
        }));
        executor
            .block_on(async {
                yield_now().await;
                yield_now().await;
            })
            .expect("the run ends");
        let ran = *ran.borrow();
        (ran, executor.panics())
    });
    assert!(ran, "the detached task ran to its end");
    assert_eq!(panics.len(), 1);
    assert_eq!(panics[0].message, "the detached task fails");
}

/// Tasks still pending when `block_on` returns stay in the executor, and
/// go on in the next `block_on`.
#[test]
fn tasks_left_pending_by_one_block_on_go_on_in_the_next() {
    let (left, output) = within("two runs", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let task = executor.spawn(async move {
            handle.sleep(std::time::Duration::from_millis(5)).await;
            7
        });
        // The task runs once (it sets its timer), then the root is ready.
        executor.block_on(async {}).expect("the first run ends");
        let left = executor.live_tasks();
        let output = executor.block_on(task).expect("the second run ends");
        (left, output)
    });
    assert_eq!(left, 1, "the sleeping task stayed");
    assert_eq!(output, Ok(7));
}

/// The root future's panic is the caller's: it comes up through
/// `block_on`. The tasks polled in the same batch are not lost, and the
/// executor can run again.
#[test]
fn a_panic_of_the_root_comes_up_through_block_on_and_loses_no_task() {
    let (message, output) = within("root panic", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let spawned = Rc::new(RefCell::new(None));
        let keep = spawned.clone();
        let mut first = true;
        let root = poll_fn(move |cx| {
            if !first {
                panic!("the root gives up");
            }
            first = false;
            // Queued after the root: the two are taken in one batch, the
            // root first.
            cx.waker().wake_by_ref();
            *keep.borrow_mut() = Some(handle.spawn(async { 7 }));
            Poll::<()>::Pending
        });
        let caught =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| executor.block_on(root)));
        let message = caught
            .expect_err("the root's panic comes up")
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned());
        let task = spawned.take().expect("the root spawned its task");
        let output = executor.block_on(task).map_err(|e| e.to_string());
        (message, output)
    });
    assert_eq!(message.as_deref(), Some("the root gives up"));
    assert_eq!(output, Ok(Ok(7)), "the task behind the root still ran");
}

/// A `JoinHandle` gives its task's output once; `is_finished` says when
/// the task has ended; polled again after it returned, it panics.
#[test]
fn a_join_handle_is_finished_when_its_task_ends_and_returns_once() {
    let (before, after, again) = within("join once", || {
        let executor = Executor::new().expect("an executor");
        let mut task = executor.spawn(async { 7 });
        let before = task.is_finished();
        executor.block_on(async {}).expect("the task runs");
        let after = task.is_finished();
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        assert_eq!(
            std::pin::Pin::new(&mut task).poll(&mut cx),
            Poll::Ready(Ok(7))
        );
        let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = std::pin::Pin::new(&mut task).poll(&mut cx);
        }));
        (before, after, again.is_err())
    });
    assert!(!before && after);
    assert!(again, "a second poll panics");
}

/// A turn polls at most `TURN_BUDGET` tasks before it looks at the
/// sockets and timers: a task that wakes itself at every poll, forever,
/// does not keep a timer from firing.
#[test]
fn a_task_that_keeps_waking_itself_does_not_starve_the_timers() {
    let slept = block_on(|executor: &Executor| {
        let handle = executor.handle();
        drop(handle.spawn(poll_fn(|cx| {
            cx.waker().wake_by_ref();
            Poll::<()>::Pending
        })));
        async move {
            handle.sleep(std::time::Duration::from_millis(1)).await;
            true
        }
    });
    assert!(slept);
}
