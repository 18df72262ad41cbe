//! Chapter 7, exercise 2: a fan-out bounded by a semaphore.
//!
//! The Twisted article found no use for a semaphore. Here is one: send
//! many requests at once, but never more than `limit` at a time (the
//! service, or the descriptor limit, would not like ten thousand). One
//! fiber per item, each taking a [`scheduler::Semaphore`] permit before it
//! connects and dropping it when done; the caller joins them all and
//! returns the outcomes in item order.
//!
//! Write `spawn_fetches`; [`fetch_all`], which joins the fibers, is
//! written.
//!
//! Six items, at most two at once, called from a fiber:
//!
//! ```
//! use std::time::Duration;
//! use ch07_fan_out::{fetch_all, peak_in_flight};
//! use scheduler::Scheduler;
//! use testbed::latency::LatencyModel;
//! use testbed::server::{ServerConfig, SlowServer};
//!
//! let latency = LatencyModel::Fixed(Duration::from_millis(1));
//! let server = SlowServer::spawn(ServerConfig { latency, ..ServerConfig::default() })?;
//! let (work, addr) = (testbed::workload::items(6, 1), server.addr());
//! let sched = Scheduler::new()?;
//! let sched2 = sched.clone();
//! let all = sched.spawn(move || fetch_all(&sched2, addr, work, 2))?;
//! sched.run()?;
//! let outcomes = all.try_join().expect("fetch_all finished")?;
//! assert!(outcomes.iter().all(Result::is_ok), "every fetch succeeded");
//! assert_eq!((outcomes.len(), peak_in_flight()), (6, 2), "six outcomes, never more than two fetches at once");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch07-fan-out");

use std::cell::Cell;
use std::net::SocketAddr;

use scheduler::{FiberTcpStream, JoinHandle, Scheduler, Semaphore};
use testbed::conn::Conn;
use testbed::outcome::{Failure, Outcome};
use testbed::protocol::Phases;
use testbed::workload::Item;

thread_local! {
    /// Fetches running now, and the most ever at once, on this thread
    /// (fibers of a scheduler all run on its thread).
    static IN_FLIGHT: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// The most fetches that ran at once on this thread so far.
pub fn peak_in_flight() -> usize {
    IN_FLIGHT.with(|n| n.get().1)
}

/// Counts a fetch in flight while it lives.
struct InFlight;

impl InFlight {
    fn enter() -> InFlight {
        IN_FLIGHT.with(|n| {
            let (now, peak) = n.get();
            n.set((now + 1, peak.max(now + 1)));
        });
        InFlight
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        IN_FLIGHT.with(|n| {
            let (now, peak) = n.get();
            n.set((now - 1, peak));
        });
    }
}

/// Sends one item on a connection of its own (stage 1's request, in a
/// fiber).
fn fetch(sched: &Scheduler, server: SocketAddr, item: &Item) -> Outcome {
    let _in_flight = InFlight::enter();
    let stream = FiberTcpStream::connect(sched, server).map_err(|e| Failure::from_io(&e))?;
    sync::request(&mut Conn::new(stream), item, Phases::Two)
}

/// Fetches every item, each in its own fiber, at most `limit` at once, and
/// returns the outcomes in item order. Call it from a fiber.
///
/// # Panics
///
/// If a fiber cannot be spawned, or panics.
pub fn fetch_all(
    sched: &Scheduler,
    server: SocketAddr,
    items: Vec<Item>,
    limit: usize,
) -> Vec<Outcome> {
    let permits = Semaphore::new(sched, limit);
    spawn_fetches(sched, server, items, &permits)
        .into_iter()
        .map(|fiber| fiber.join().expect("fetch does not panic"))
        .collect()
}

// ANCHOR: exercise
/// Spawns one fiber per item, in item order. Each fiber holds a permit of
/// `permits` while it fetches, so at most that many fetch at once.
fn spawn_fetches(
    sched: &Scheduler,
    server: SocketAddr,
    items: Vec<Item>,
    permits: &Semaphore,
) -> Vec<JoinHandle<Outcome>> {
    // TODO: where must each fiber take its permit so that spawning never waits, and how long must it keep it?
    todo!("where must each fiber take its permit so that spawning never waits, and how long must it keep it?")
}
// ANCHOR_END: exercise

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use testbed::latency::LatencyModel;
    use testbed::server::{ServerConfig, SlowServer};
    use testbed::workload::items;

    fn server() -> SlowServer {
        SlowServer::spawn(ServerConfig {
            latency: LatencyModel::Fixed(Duration::from_millis(2)),
            ..ServerConfig::default()
        })
        .expect("the embedded server starts")
    }

    fn fetch_all_in_a_fiber(server: SocketAddr, items: Vec<Item>, limit: usize) -> Vec<Outcome> {
        let sched = Scheduler::new().expect("a scheduler");
        let sched2 = sched.clone();
        let all = sched
            .spawn(move || fetch_all(&sched2, server, items, limit))
            .expect("spawn");
        sched.run().expect("the scheduler finishes");
        all.try_join()
            .expect("finished")
            .expect("fetch_all does not panic")
    }

    #[test]
    fn every_item_comes_back_in_order() {
        let server = server();
        let work = items(30, 1);
        let outcomes = fetch_all_in_a_fiber(server.addr(), work.clone(), 5);
        let expected: Vec<Outcome> = work.iter().map(|i| Ok(i.expected_result())).collect();
        assert_eq!(
            outcomes, expected,
            "every item should get its own outcome, in item order"
        );
    }

    #[test]
    fn spawning_never_waits_for_a_permit() {
        let server = server();
        let sched = Scheduler::new().expect("a scheduler");
        let sched2 = sched.clone();
        let addr = server.addr();
        let spawned = sched
            .spawn(move || {
                let permits = Semaphore::new(&sched2, 1);
                // The only permit is taken: a spawn that waits for one
                // would wait for this fiber, which waits for the spawn.
                let held = permits.acquire();
                let fibers = spawn_fetches(&sched2, addr, items(3, 1), &permits);
                let spawned = fibers.len();
                drop(held);
                let finished = fibers
                    .into_iter()
                    .map(JoinHandle::join)
                    .filter(|outcome| matches!(outcome, Ok(Ok(_))))
                    .count();
                (spawned, finished)
            })
            .expect("spawn");
        // A spawn that waits for a permit deadlocks: the scheduler says so.
        let run = sched.run();
        assert!(
            run.is_ok(),
            "spawning should not wait for a permit: {run:?}"
        );
        assert_eq!(
            spawned.try_join().and_then(Result::ok),
            Some((3, 3)),
            "all three fibers should be spawned at once, and each fetch once the permit is free"
        );
    }

    #[test]
    fn never_more_than_limit_connections_at_once() {
        let server = server();
        let outcomes = fetch_all_in_a_fiber(server.addr(), items(40, 2), 4);
        assert_eq!(outcomes.len(), 40, "one outcome per item");
        // Each fiber fetches only while it holds a permit, and with 40
        // fibers waiting, the permits are all in use.
        assert_eq!(
            peak_in_flight(),
            4,
            "at most the limit of 4 fetches should run at once, and with 40 waiting, exactly 4"
        );
    }

    #[test]
    fn a_fiber_waiting_for_a_permit_sleeps() {
        // Each reply takes 200 ms and only one fetch may run: the second
        // fiber waits 200 ms for the permit.
        let slow = SlowServer::spawn(ServerConfig {
            latency: LatencyModel::Fixed(Duration::from_millis(200)),
            ..ServerConfig::default()
        })
        .expect("the embedded server starts");
        let addr = slow.addr();
        let outcomes = testbed::testing::assert_quiet_within(
            Duration::from_secs(2),
            "the second fetch never got the permit the first one gave back after 200 ms",
            "a fiber waiting 200 ms for a permit",
            move || {
                let outcomes = fetch_all_in_a_fiber(addr, items(2, 3), 1);
                outcomes.iter().filter(|o| o.is_ok()).count()
            },
        );
        assert_eq!(
            outcomes, 2,
            "both fetches should succeed, one after the other"
        );
    }
}
