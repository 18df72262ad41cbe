//! Step 4 of chapter 8: many futures on one thread. Step 3's loop polled
//! one future; this crate's [`Executor`] polls many (tasks), each only when
//! its waker has put it in the ready queue, and sleeps in one place for all
//! of them: `epoll_wait`, over every socket a task waits on.
//!
//! `cargo run -p executor --example step4_tasks`

use std::time::{Duration, Instant};

use executor::{AsyncConn, Executor, request};
use testbed::latency::LatencyModel;
use testbed::protocol::Phases;
use testbed::server::{ServerConfig, SlowServer};
use testbed::workload::items;

#[path = "common/cpu.rs"]
mod cpu;

/// How many requests, each on its own connection, all at once.
const TASKS: usize = 100;

// ANCHOR: tasks
/// Sends `n` requests at once, one task each, to a server that takes
/// `latency` to answer each; returns how many came back right.
fn run(n: usize, latency: Duration) -> Result<usize, Box<dyn std::error::Error>> {
    let server = SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(latency),
        ..ServerConfig::default()
    })?;
    let executor = Executor::new()?;
    let handle = executor.handle();
    let mut tasks = Vec::new();
    for item in items(n, 1) {
        let handle = handle.clone();
        let addr = server.addr();
        // `spawn` boxes the future, puts it in the task table, and wakes it
        // once: the loop will poll it on its next turn.
        tasks.push(executor.spawn(async move {
            let mut conn = AsyncConn::connect(&handle, addr).await?;
            let outcome = request(&mut conn, &item, Phases::One).await;
            Ok::<_, std::io::Error>(outcome == Ok(item.expected_result()))
        }));
    }
    // The root future waits for every task's `JoinHandle`, in turn; the
    // loop polls whichever task its waker queued meanwhile.
    let right = executor.block_on(async move {
        let mut right = 0;
        for task in tasks {
            right += usize::from(matches!(task.await, Ok(Ok(true))));
        }
        right
    })?;
    let stats = executor.stats();
    println!(
        "{} tasks, {} polls ({} found nothing to do), {} wakes, {} epoll_wait calls",
        stats.spawned, stats.polls, stats.idle_polls, stats.wakes, stats.waits
    );
    Ok(right)
}
// ANCHOR_END: tasks

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let latency = Duration::from_millis(50);
    println!("{TASKS} requests at once, each answered in {latency:?}, on one thread:");
    let started = Instant::now();
    let right = cpu::measured("the run", || run(TASKS, latency))?;
    println!(
        "{right} of {TASKS} answers right, in {:.0} ms (one after another: {} ms)",
        started.elapsed().as_secs_f64() * 1e3,
        TASKS as u128 * latency.as_millis()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_is_answered_right() {
        assert_eq!(
            run(20, Duration::from_millis(1)).expect("the run works"),
            20
        );
    }
}
