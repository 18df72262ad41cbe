//! The pool's loop: `dispose` honours its timeout, `drain` returns when
//! nothing is left, and every callback is called exactly once.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use select::pool::{Pool, PoolConfig};
use select::{Backend, Selector};
use testbed::latency::LatencyModel;
use testbed::protocol::Phases;
use testbed::server::{ServerConfig, SlowServer};
use testbed::workload::items;

use crate::util::backends;

/// The server's service time in these tests: long next to the waits below.
const SLOW: Duration = Duration::from_millis(150);

fn slow_server() -> SlowServer {
    SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(SLOW),
        ..ServerConfig::default()
    })
    .expect("the embedded server starts")
}

#[test]
fn dispose_returns_at_its_timeout_and_drain_when_nothing_is_left() {
    for backend in backends() {
        let server = slow_server();
        let done = RefCell::new(Vec::new());
        let config = PoolConfig {
            server: server.addr(),
            size: 2,
            phases: Phases::One,
        };
        let mut pool = Pool::new(Selector::new(backend).expect("a selector"), config);
        // Nothing in flight: nothing to wait for, so no wait at all.
        let start = Instant::now();
        assert_eq!(pool.dispose(None).expect("dispose"), 0);
        assert!(start.elapsed() < SLOW, "{backend}");

        for item in items(2, 1) {
            pool.submit(item, Box::new(|c| done.borrow_mut().push(c)))
                .expect("submit");
        }
        assert_eq!(pool.in_flight(), 2);
        // The replies are 150 ms away: a 10 ms dispose comes back empty
        // handed (after the handshakes' events, at most), never late.
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(10) {
            pool.dispose(Some(Duration::from_millis(10)))
                .expect("dispose");
        }
        assert!(start.elapsed() < SLOW, "{backend}: dispose overslept");
        assert!(done.borrow().is_empty(), "{backend}");

        pool.close().expect("close");
        assert_eq!(pool.in_flight(), 0);
        assert_eq!(pool.connections(), 0, "{backend}: close closes");
        let done = done.take();
        assert_eq!(done.len(), 2, "{backend}: each callback once");
        assert!(done.iter().all(|c| c.outcome.is_ok()), "{backend}");
        server.shutdown();
    }
}

#[test]
fn a_full_pool_waits_for_the_first_free_slot_not_the_oldest() {
    // Two slots; item 0 takes 10 x longer than item 1 (bimodal latency
    // chosen per item). Item 2 must go out as soon as item 1 is back.
    let server = SlowServer::spawn(ServerConfig {
        latency: "bimodal:0.5:300ms:10ms".parse().expect("a latency spec"),
        ..ServerConfig::default()
    })
    .expect("the embedded server starts");
    let work = items(40, 1);
    let latency = |id| {
        "bimodal:0.5:300ms:10ms"
            .parse::<LatencyModel>()
            .expect("a latency spec")
            .sample(1, id, testbed::protocol::Phase::Get)
    };
    let slow = work
        .iter()
        .find(|i| latency(i.id) > SLOW)
        .expect("a slow item")
        .clone();
    let fast: Vec<_> = work
        .iter()
        .filter(|i| latency(i.id) < SLOW)
        .take(2)
        .cloned()
        .collect();
    let order = vec![slow.clone(), fast[0].clone(), fast[1].clone()];
    let done = crate::util::run_pool(Backend::Epoll, server.addr(), 2, Phases::One, order);
    server.shutdown();
    let finished = |id| {
        done.iter()
            .find(|(c, _)| c.item == id)
            .map(|(c, t)| (c.slot, *t))
            .expect("done")
    };
    let (slow_slot, slow_at) = finished(slow.id);
    let (third_slot, third_at) = finished(fast[1].id);
    assert_ne!(slow_slot, third_slot, "the third item took the free slot");
    assert!(
        third_at < slow_at,
        "the third item did not wait behind the slow one"
    );
}
