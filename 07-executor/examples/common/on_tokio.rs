//! The same bugs on tokio's current-thread runtime (`--runtime tokio`):
//! one thread, like this crate's executor, so a mistake costs the same.
//!
//! There is no harness here: the items are simulated (each one's request
//! is a `tokio::time::sleep` of `--latency` per phase), at most `--conns`
//! at once unless the example says otherwise, and a ticker task sets a
//! 5 ms timer over and over to see how late the loop serves it. The run
//! prints items/s, the latency's p50 and p99, the late timers, and the
//! CPU time of the runtime's thread (a loop that spins burns it). A run
//! that has not finished after [`LIMIT`] is reported as stuck: tokio has
//! no stuck check, and would wait for ever.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use testbed::cli::Settings;

#[path = "cpu.rs"]
mod cpu;

/// How long a tokio run may take before it is called stuck.
pub const LIMIT: Duration = Duration::from_secs(5);

/// The ticker's period, and how late a tick may be before it counts as
/// late (tokio's timers have a 1 ms granularity).
const TICK: Duration = Duration::from_millis(5);
const LATE: Duration = Duration::from_millis(2);

/// One item's bug, as a future made per item.
pub type PerItem = Box<dyn Fn(u64) -> Pin<Box<dyn Future<Output = ()>>>>;

/// What a tokio run measured.
#[derive(Debug, Default)]
pub struct Measured {
    pub done: usize,
    pub panicked: usize,
    pub elapsed: Duration,
    pub latencies: Vec<Duration>,
    pub ticks: usize,
    pub late: usize,
    pub worst_late: Duration,
    pub peak_tasks: usize,
}

/// Runs `settings.items` items on a current-thread runtime, each doing
/// `make()`'s per-item future before its simulated request; `bounded`
/// keeps at most `--conns` at once. Prints the numbers; exit status 1 when
/// an item panicked or the run did not finish.
pub fn run(
    settings: &Settings,
    bounded: bool,
    make: impl FnOnce() -> PerItem + Send + 'static,
) -> ExitCode {
    let (tx, rx) = mpsc::channel();
    let settings = settings.clone();
    let items = settings.items;
    std::thread::Builder::new()
        .name("tokio-ct".into())
        .spawn(move || {
            // The runtime's thread: a loop that spins shows here.
            let measured = cpu::measured("tokio's thread", || measure(&settings, bounded, make()));
            let _ = tx.send(measured);
        })
        .expect("a thread starts");
    let Ok(measured) = rx.recv_timeout(LIMIT) else {
        println!(
            "tokio current-thread: not finished after {LIMIT:?}: stuck \
             (tokio has no stuck check: it would wait for ever)"
        );
        return ExitCode::FAILURE;
    };
    print(&measured, items);
    if measured.panicked > 0 || measured.done < items {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn measure(settings: &Settings, bounded: bool, per_item: PerItem) -> Measured {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let local = tokio::task::LocalSet::new();
    let service = settings.latency.mean() * settings.phases.count();
    let conns = settings.conns;
    let items = settings.items as u64;
    local.block_on(&runtime, async move {
        let measured = Rc::new(RefCell::new(Measured::default()));
        let started = Instant::now();
        let ticker = tokio::task::spawn_local(tick(measured.clone()));
        let limit = std::sync::Arc::new(tokio::sync::Semaphore::new(conns));
        let alive = Rc::new(std::cell::Cell::new(0usize));
        let mut tasks = Vec::new();
        for id in 0..items {
            let permit = match bounded {
                true => Some(limit.clone().acquire_owned().await.expect("never closed")),
                false => None,
            };
            let bug = per_item(id);
            let (measured, alive) = (measured.clone(), alive.clone());
            alive.set(alive.get() + 1);
            {
                let mut m = measured.borrow_mut();
                m.peak_tasks = m.peak_tasks.max(alive.get());
            }
            tasks.push(tokio::task::spawn_local(async move {
                // Counts the task out however it ends, panics included.
                let _alive = Alive(alive);
                let item_started = Instant::now();
                bug.await;
                tokio::time::sleep(service).await;
                measured.borrow_mut().latencies.push(item_started.elapsed());
                drop(permit);
            }));
        }
        for task in tasks {
            match task.await {
                Ok(()) => measured.borrow_mut().done += 1,
                Err(_) => measured.borrow_mut().panicked += 1,
            }
        }
        ticker.abort();
        measured.borrow_mut().elapsed = started.elapsed();
        measured.take()
    })
}

/// One task alive; dropped, one fewer.
struct Alive(Rc<std::cell::Cell<usize>>);

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

/// Sets a [`TICK`] timer over and over, counting the late ones.
async fn tick(measured: Rc<RefCell<Measured>>) {
    loop {
        let due = tokio::time::Instant::now() + TICK;
        tokio::time::sleep_until(due).await;
        let late = due.elapsed();
        let mut m = measured.borrow_mut();
        m.ticks += 1;
        m.worst_late = m.worst_late.max(late);
        m.late += usize::from(late > LATE);
    }
}

fn print(m: &Measured, items: usize) {
    let mut sorted = m.latencies.clone();
    sorted.sort_unstable();
    let at = |q: f64| {
        let i = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len().max(1)) - 1;
        sorted.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "tokio current-thread: {} of {items} items ok, {} panicked, in {:.3} s: {:.0} items/s",
        m.done,
        m.panicked,
        m.elapsed.as_secs_f64(),
        m.done as f64 / m.elapsed.as_secs_f64()
    );
    println!(
        "  latency p50 {:.1} ms, p99 {:.1} ms; peak tasks {}",
        at(0.5),
        at(0.99),
        m.peak_tasks
    );
    println!(
        "  timers: {} of {} ticks more than {LATE:?} late, the worst by {:.1} ms",
        m.late,
        m.ticks,
        m.worst_late.as_secs_f64() * 1e3
    );
}
