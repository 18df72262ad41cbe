//! Step 7 of chapter 8: structured concurrency. A `TaskSet` owns the tasks
//! it spawns: it hands back each one's result as it ends, a panic included,
//! and cancels the ones still running when it is dropped.
//!
//! `cargo run -p executor --example step7_task_set`

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use executor::{Executor, JoinError, TaskSet};

/// Writes a line to the log when it is dropped: how a cancelled child
/// shows that its destructors ran.
struct Noisy {
    name: String,
    log: Rc<RefCell<Vec<String>>>,
}

impl Drop for Noisy {
    fn drop(&mut self) {
        self.log.borrow_mut().push(format!("{} dropped", self.name));
    }
}

/// The children's results, in the order the set gave them, and the log.
type Outcome = (Vec<Result<u64, JoinError>>, Vec<String>);

// ANCHOR: fan_out
/// Spawns a child per delay (in ms; `None` for a child that panics), keeps
/// the first `keep` results, and drops the set. Returns the results, and
/// the log of what happened, in order.
fn first_of(delays: &[Option<u64>], keep: usize) -> std::io::Result<Outcome> {
    let executor = Executor::new()?;
    let handle = executor.handle();
    let log = Rc::new(RefCell::new(Vec::new()));
    let delays = delays.to_vec();
    let root_log = log.clone();
    let results = executor.block_on(async move {
        let mut set = TaskSet::new(&handle);
        for (i, delay) in delays.into_iter().enumerate() {
            let (handle, log) = (handle.clone(), root_log.clone());
            set.spawn(async move {
                let name = format!("child {i}");
                let _noisy = Noisy {
                    name: name.clone(),
                    log: log.clone(),
                };
                let Some(ms) = delay else {
                    panic!("{name} fails");
                };
                handle.sleep(Duration::from_millis(ms)).await;
                log.borrow_mut()
                    .push(format!("{name} finished after {ms} ms"));
                ms
            });
        }
        let mut results = Vec::new();
        while results.len() < keep {
            let Some(result) = set.join_next().await else {
                break;
            };
            results.push(result);
        }
        root_log.borrow_mut().push("the set is dropped".into());
        results
        // `set` is dropped here: the children still running are cancelled.
    });
    let results = results.map_err(std::io::Error::other)?;
    assert_eq!(executor.live_tasks(), 0, "no child outlives the set");
    let log = log.borrow().clone();
    Ok((results, log))
}
// ANCHOR_END: fan_out

fn main() -> std::io::Result<()> {
    println!("four children: 30 ms, 10 ms, one that panics, 20 ms; keep three results");
    // The panic hook runs as the child panics, before the executor catches
    // it; this one prints one line instead of a backtrace. The set hands
    // the panic back as a result, below.
    std::panic::set_hook(Box::new(|info| {
        let message = info.payload().downcast_ref::<String>();
        println!(
            "  (panic hook) {}",
            message.map_or("a panic", String::as_str)
        );
    }));
    let (results, log) = first_of(&[Some(30), Some(10), None, Some(20)], 3)?;
    for line in log {
        println!("  {line}");
    }
    for result in results {
        match result {
            Ok(ms) => println!("result: {ms} ms"),
            Err(error) => println!("result: {error}"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_the_set_cancels_the_children_still_running() {
        let (results, log) = first_of(&[Some(5), Some(10_000), Some(10_000)], 1).expect("runs");
        assert_eq!(results, [Ok(5)]);
        // Both sleepers were dropped, after the set, and never finished.
        let dropped_after_the_set: Vec<&String> = log
            .iter()
            .skip_while(|line| *line != "the set is dropped")
            .collect();
        assert_eq!(dropped_after_the_set.len(), 3, "{log:?}");
        assert!(!log.iter().any(|line| line.contains("10000 ms")), "{log:?}");
    }

    #[test]
    fn a_childs_panic_is_reported_as_its_result() {
        let (results, _) = first_of(&[None, Some(1)], 2).expect("runs");
        let panicked = results
            .iter()
            .find_map(|r| match r {
                Err(JoinError::Panicked(p)) => Some(p.message.clone()),
                _ => None,
            })
            .expect("the panic came back");
        assert_eq!(panicked, "child 0 fails");
        assert!(results.contains(&Ok(1)));
    }
}
