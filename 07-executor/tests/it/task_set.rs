//! `TaskSet`: children's results come back, panics included, and dropping
//! the set cancels the children still running, and their own children.

use std::cell::{Cell, RefCell};
use std::future::{pending, poll_fn};
use std::rc::{Rc, Weak};
use std::task::Poll;

use executor::{Executor, JoinError, TaskPanic, TaskSet};

use crate::util::{block_on, within};

/// Sets its flag when dropped: a cancelled future's destructors ran.
struct Flag(Rc<Cell<bool>>);

impl Drop for Flag {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

/// A destructor that panics.
struct PanicsOnDrop(&'static str);

impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        panic!("{}", self.0);
    }
}

/// Returns `Pending` once, woken at once: every other queued task runs
/// before this one goes on.
async fn yield_now() {
    let mut yielded = false;
    poll_fn(|cx| {
        if yielded {
            return Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    })
    .await;
}

#[test]
fn dropping_the_set_cancels_its_children_and_their_handles_see_it() {
    let dropped = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let dropped = Rc::new(Cell::new(false));
            let flag = Flag(dropped.clone());
            let mut set = TaskSet::new(&handle);
            set.spawn(async move {
                let _flag = flag;
                pending::<()>().await;
            });
            // Let the child run once and start waiting.
            yield_now().await;
            assert!(!dropped.get());
            drop(set);
            dropped.get()
        }
    });
    assert!(dropped, "the child's future was dropped with the set");
}

#[test]
fn a_childs_panic_comes_back_as_its_result() {
    let results = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let mut set = TaskSet::new(&handle);
            set.spawn(async { panic!("the child fails") });
            set.spawn(async { 2 });
            let mut results = Vec::new();
            while let Some(result) = set.join_next().await {
                results.push(result);
            }
            results
        }
    });
    assert_eq!(results.len(), 2);
    assert!(results.contains(&Ok(2)));
    assert!(
        results
            .iter()
            .any(|r| matches!(r, Err(JoinError::Panicked(p)) if p.message == "the child fails")),
        "{results:?}"
    );
}

#[test]
fn cancelling_a_task_that_owns_a_set_cancels_its_children_too() {
    let grandchild_dropped = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let dropped = Rc::new(Cell::new(false));
            let flag = Flag(dropped.clone());
            let mut outer = TaskSet::new(&handle);
            let inner_handle = handle.clone();
            outer.spawn(async move {
                let mut inner = TaskSet::new(&inner_handle);
                inner.spawn(async move {
                    let _flag = flag;
                    pending::<()>().await;
                });
                inner.join_next().await;
            });
            // The child runs and spawns the grandchild, which runs.
            yield_now().await;
            yield_now().await;
            assert!(!dropped.get());
            drop(outer);
            dropped.get()
        }
    });
    assert!(grandchild_dropped);
}

#[test]
fn dropping_the_executor_drops_a_set_inside_a_task_and_its_children() {
    let dropped = crate::util::within("executor drop", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let dropped = Rc::new(Cell::new(false));
        let flag = Flag(dropped.clone());
        let inner = handle.clone();
        executor.spawn(async move {
            let mut set = TaskSet::new(&inner);
            set.spawn(async move {
                let _flag = flag;
                pending::<()>().await;
            });
            set.join_next().await;
        });
        let started = executor.block_on(async {
            yield_now().await;
            yield_now().await;
        });
        assert!(started.is_ok());
        // The parent task, and its set, are dropped with the executor,
        // while the executor's table is being emptied.
        drop(executor);
        dropped.get()
    });
    assert!(dropped);
}

#[test]
fn children_that_ended_since_the_last_look_come_back_in_the_order_they_were_spawned() {
    let order = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let mut set = TaskSet::new(&handle);
            for n in 0..4 {
                set.spawn(async move { n });
            }
            // All four run, and end, before the first look.
            yield_now().await;
            let mut order = Vec::new();
            while let Some(result) = set.join_next().await {
                order.push(result.expect("no child fails"));
            }
            order
        }
    });
    assert_eq!(order, [0, 1, 2, 3]);
}

/// Three children waiting, the first with a destructor that panics;
/// `TaskSet::abort_all` (by the drop of the set) and the executor's
/// panics, `live_tasks` after.
type Aborted = (Vec<bool>, Vec<TaskPanic>, usize);

#[test]
fn a_destructor_that_panics_does_not_stop_the_set_cancelling_the_others() {
    let (dropped, panics, live): Aborted = within("abort_all", || {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let flags: Vec<Rc<Cell<bool>>> = (0..3).map(|_| Rc::default()).collect();
        let mut set = TaskSet::new(&handle);
        for (n, flag) in flags.iter().enumerate() {
            let flag = Flag(flag.clone());
            let bomb = (n == 0).then(|| PanicsOnDrop("child 0's destructor"));
            set.spawn(async move {
                let _flag = flag;
                let _bomb = bomb;
                pending::<()>().await;
            });
        }
        executor.block_on(yield_now()).expect("the children start");
        drop(set);
        let dropped = flags.iter().map(|flag| flag.get()).collect();
        (dropped, executor.panics(), executor.live_tasks())
    });
    assert_eq!(dropped, [true, true, true], "every child was dropped");
    assert_eq!(live, 0, "no child runs on");
    assert_eq!(panics.len(), 1, "{panics:?}");
    assert_eq!(panics[0].message, "child 0's destructor");
}

/// Records how many tasks its executor still holds when it is dropped.
struct CountsLive(Weak<Executor>, Rc<RefCell<Vec<usize>>>);

impl Drop for CountsLive {
    fn drop(&mut self) {
        if let Some(executor) = self.0.upgrade() {
            self.1.borrow_mut().push(executor.live_tasks());
        }
    }
}

#[test]
fn the_set_takes_every_child_out_before_it_drops_the_first() {
    let live = within("abort order", || {
        let executor = Rc::new(Executor::new().expect("an executor"));
        let live = Rc::new(RefCell::new(Vec::new()));
        let mut set = TaskSet::new(&executor.handle());
        for _ in 0..3 {
            let counts = CountsLive(Rc::downgrade(&executor), live.clone());
            set.spawn(async move {
                let _counts = counts;
                pending::<()>().await;
            });
        }
        executor.block_on(yield_now()).expect("the children start");
        drop(set);
        live.take()
    });
    assert_eq!(
        live,
        [0, 0, 0],
        "each destructor found every child cancelled"
    );
}

#[test]
fn a_child_that_cancels_its_own_set_and_returns_ends_once() {
    let (panics, live) = within("abort self, ready", || {
        let executor = Executor::new().expect("an executor");
        let set = Rc::new(RefCell::new(TaskSet::new(&executor.handle())));
        let inner = set.clone();
        set.borrow_mut().spawn(async move {
            inner.borrow_mut().abort_all();
            7
        });
        executor.block_on(yield_now()).expect("the child runs");
        (executor.panics(), executor.live_tasks())
    });
    // Its join is ended by its output alone, not first by the abort too.
    assert!(panics.is_empty(), "{panics:?}");
    assert_eq!(live, 0);
}

#[test]
fn a_child_that_cancels_its_own_set_and_waits_is_dropped_its_panic_caught() {
    let (panics, live) = within("abort self, pending", || {
        let executor = Executor::new().expect("an executor");
        let set = Rc::new(RefCell::new(TaskSet::new(&executor.handle())));
        let inner = set.clone();
        set.borrow_mut().spawn(async move {
            let _bomb = PanicsOnDrop("the aborted child's destructor");
            inner.borrow_mut().abort_all();
            pending::<()>().await;
        });
        executor.block_on(yield_now()).expect("the child runs");
        (executor.panics(), executor.live_tasks())
    });
    assert_eq!(live, 0, "the child is gone");
    assert_eq!(panics.len(), 1, "{panics:?}");
    assert_eq!(panics[0].message, "the aborted child's destructor");
}
