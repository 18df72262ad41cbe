//! `TaskSet`: children's results come back, panics included, and dropping
//! the set cancels the children still running, and their own children.

use std::cell::Cell;
use std::future::{pending, poll_fn};
use std::rc::Rc;
use std::task::Poll;

use executor::{Executor, JoinError, TaskSet};

use crate::util::block_on;

/// Sets its flag when dropped: a cancelled future's destructors ran.
struct Flag(Rc<Cell<bool>>);

impl Drop for Flag {
    fn drop(&mut self) {
        self.0.set(true);
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
