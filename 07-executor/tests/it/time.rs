//! Timers: sleeps end in deadline order; a timeout returns the future's
//! output or drops the future.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use executor::{Elapsed, Executor};

use crate::util::{Forgetful, block_on};

#[test]
fn sleeps_end_in_deadline_order() {
    let order = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let order = Rc::new(RefCell::new(Vec::new()));
            let tasks: Vec<_> = [3u64, 1, 2]
                .into_iter()
                .map(|ms| {
                    let (order, sleeper) = (order.clone(), handle.clone());
                    handle.spawn(async move {
                        sleeper.sleep(Duration::from_millis(ms)).await;
                        order.borrow_mut().push(ms);
                    })
                })
                .collect();
            for task in tasks {
                task.await.expect("no panic");
            }
            order.borrow().clone()
        }
    });
    assert_eq!(order, [1, 2, 3]);
}

#[test]
fn a_timeout_returns_the_output_of_a_future_that_is_in_time() {
    let output = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let quick = handle.sleep(Duration::from_millis(1));
            handle
                .timeout(Duration::from_secs(60), async {
                    quick.await;
                    42
                })
                .await
        }
    });
    assert_eq!(output, Ok(42));
}

/// When the limit comes first the future is dropped, mid-await: its
/// destructors have run by the time `timeout` returns.
#[test]
fn a_timeout_that_fires_drops_the_future() {
    struct Flag(Rc<RefCell<bool>>);
    impl Drop for Flag {
        fn drop(&mut self) {
            *self.0.borrow_mut() = true;
        }
    }
    let (result, dropped) = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let dropped = Rc::new(RefCell::new(false));
            let flag = Flag(dropped.clone());
            let result = handle
                .timeout(Duration::from_millis(5), async move {
                    let _flag = flag;
                    Forgetful.await;
                })
                .await;
            let dropped = *dropped.borrow();
            (result, dropped)
        }
    });
    assert_eq!(result, Err(Elapsed(Duration::from_millis(5))));
    assert!(dropped);
}
