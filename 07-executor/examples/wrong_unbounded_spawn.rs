//! A loop that goes wrong, 6: a task per item, all at once.
//!
//! Spawning is cheap: a few hundred bytes of future, no stack, no thread.
//! So cheap that the obvious loop, `for item in items { spawn(...) }`,
//! starts every item at the same instant, and every item opens its
//! connection at once: `--conns` says 20 and the server sees as many
//! connections as there are items. The tasks are not the cost; what each
//! holds is: a socket, a descriptor, a place in the server's listen queue
//! and in its pool.
//!
//! At the default 200 items the bug even looks like a win: the embedded
//! server takes all 200 connections at once, and the run reported 4,418
//! items/s against 887 for the fix. At `--items 30000` the same run
//! reported 16,181 of the 30,000 items failed (16,069 `closed`, 112
//! `refused`: the server out of descriptors at a peak of 6,055
//! connections), 294 MiB of peak memory against 19, and 30,000 tasks
//! alive at once; the fix, 30,000 ok in 31.5 s. (Both with
//! `cargo run --release -p executor --example wrong_unbounded_spawn -- --items 30000 [--fixed]`,
//! `ulimit -n` 20000.)
//!
//! The fix is the stage's own: a [`Semaphore`] of `--conns` permits,
//! acquired *before* the spawn, and given back when the task ends, so
//! the loop that spawns waits while `--conns` tasks run.
//!
//! The example is its own small stage (a connection per item, no hook):
//! the bug is in the loop that spawns, which the stage's hook does not
//! reach.
//!
//! `cargo run --release -p executor --example wrong_unbounded_spawn [-- --fixed] [--runtime tokio]`

use std::cell::RefCell;
use std::io;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use clap::Parser;
use executor::{AsyncConn, Executor, Handle, Semaphore, request};
use testbed::cli::parse_or_exit;
use testbed::machine::peak_rss_mib;
use testbed::outcome::{ErrorKind, Failure, Outcome};
use testbed::protocol::Phases;
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::store::{Lane, Store, StoreError};
use testbed::workload::Item;

#[path = "common/on_tokio.rs"]
mod on_tokio;
#[path = "common/wrong.rs"]
mod wrong;

use wrong::{Common, Runtime};

/// A stage that spawns a task per item, bounded by `--conns` or not.
struct OnePerItem {
    fixed: bool,
}

impl Stage for OnePerItem {
    fn name(&self) -> &'static str {
        "executor"
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let executor = Executor::new()?;
        if scenario.record_tasks {
            executor.record_tasks();
        }
        // The lints compare the peak of tasks alive with `--conns`.
        executor.set_conns(scenario.conns);
        let handle = executor.handle();
        let store = Rc::new(RefCell::new(scenario.open_store()?));
        let limit = Semaphore::new(&handle, scenario.conns);
        let main = async {
            let mut tasks = Vec::with_capacity(scenario.items.len());
            for (n, item) in scenario.items.iter().cloned().enumerate() {
                let permit = if self.fixed {
                    // ANCHOR: fix
                    // Waits here while `--conns` tasks are running.
                    Some(limit.acquire().await)
                    // ANCHOR_END: fix
                } else {
                    None
                };
                let lane = Lane::of(n % scenario.conns);
                // ANCHOR: bug
                // Without a permit to wait for, every item starts now.
                let task = one_item(
                    handle.clone(),
                    Target::of(scenario),
                    item,
                    lane,
                    store.clone(),
                );
                tasks.push(handle.spawn(async move {
                    let recorded = task.await;
                    drop(permit);
                    recorded
                }));
                // ANCHOR_END: bug
            }
            let mut recorded = Ok(());
            for task in tasks {
                if let Ok(Err(error)) = task.await {
                    recorded = Err(error);
                }
            }
            recorded
        };
        executor.block_on(main).map_err(io::Error::other)??;
        let stats = executor.stats();
        let mut run = RunStats::new(scenario.conns);
        executor.report_to(&mut run, scenario.epoch);
        run.figure("tasks_spawned", stats.spawned);
        run.figure("peak_tasks", stats.peak_tasks);
        run.figure("polls", stats.polls);
        if let Some(mib) = peak_rss_mib() {
            run.figure("peak_rss_mib", mib);
        }
        Ok(run)
    }
}

/// What a task needs of the scenario (a task owns what it uses).
#[derive(Clone, Copy)]
struct Target {
    server: SocketAddr,
    phases: Phases,
    connect_timeout: Duration,
}

impl Target {
    fn of(scenario: &Scenario) -> Target {
        Target {
            server: scenario.server,
            phases: scenario.phases,
            connect_timeout: scenario.connect_timeout,
        }
    }
}

/// One item on a connection of its own: connect, request, record.
async fn one_item(
    handle: Handle,
    scenario: Target,
    item: Item,
    lane: Lane,
    store: Rc<RefCell<Store>>,
) -> Result<(), StoreError> {
    let started = Instant::now();
    let connecting = AsyncConn::connect(&handle, scenario.server);
    let outcome: Outcome = match handle.timeout(scenario.connect_timeout, connecting).await {
        Ok(Ok(mut conn)) => request(&mut conn, &item, scenario.phases).await,
        Ok(Err(error)) => Err(Failure::from_io(&error)),
        Err(elapsed) => Err(Failure::new(
            ErrorKind::Timeout,
            format!("connect: {elapsed}"),
        )),
    };
    store.borrow_mut().record(item.id, lane, started, &outcome)
}

/// The same on tokio: spawning without a bound starts every item at once.
fn on_tokio() -> on_tokio::PerItem {
    Box::new(|_| Box::pin(async {}))
}

#[derive(Debug, Parser)]
#[command(name = "wrong_unbounded_spawn")]
struct Args {
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let Args { common } = parse_or_exit();
    let fixed = common.fixed;
    match common.runtime {
        Runtime::Executor => testbed::harness::main(&OnePerItem { fixed }, &common.settings),
        Runtime::Tokio => on_tokio::run(&common.settings, fixed, on_tokio),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::harness::execute;
    use testbed::report::Report;

    /// 100 items, 8 at once: more tasks than the lint's limit for 8
    /// connections (4 × 8 + 16), when they are all spawned at once.
    fn run(fixed: bool) -> Report {
        let settings = testbed::cli::Settings {
            items: 100,
            ..wrong::small()
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let report = execute(&OnePerItem { fixed }, &settings).map(|e| e.report);
            let _ = tx.send(report.map_err(|e| e.to_string()));
        });
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the run ends within 10 s")
            .expect("the run finishes")
    }

    #[test]
    fn unbounded_every_item_is_a_task_and_a_connection_at_once() {
        let report = run(false);
        assert_eq!(wrong::figure(&report, "peak_tasks"), 100, "{report}");
        assert!(
            wrong::warns(&report, "peaked at 100 for --conns 8"),
            "the report names the peak: {:?}",
            report.lints
        );
        assert!(
            report.server_peak_conns.unwrap_or(0) > 8,
            "more connections than --conns: {report}"
        );
    }

    #[test]
    fn bounded_at_most_conns_tasks_and_every_item_is_right() {
        let report = run(true);
        assert_eq!(report.ok, 100, "{report}");
        assert!(report.lints.is_empty(), "no warning: {:?}", report.lints);
        // (The server's peak of connections may pass 8 by a few: it counts
        // a closed one until it reads its end.)
        assert!(wrong::figure(&report, "peak_tasks") <= 8, "{report}");
    }
}
