//! A server that is not there yet, one that restarts in the middle of a
//! run, and one that never comes: the pool reconnects with backoff, fails
//! only what it must, and recovers by itself.

use std::net::SocketAddr;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use pool::Backend;
use pool::journal::Happening;
use testbed::outcome::ErrorKind;
use testbed::server::{ServerStats, SlowServer};
use testbed::workload::items;

use crate::util::{MS, bounded, new_pool, run_items, server_config, vacant_addr};

/// Starts a slow server on `addr` after `delay`, on a thread; it runs until
/// the returned sender is dropped, and its statistics come back on the
/// returned receiver.
fn server_later(
    addr: SocketAddr,
    delay: Duration,
) -> (mpsc::Sender<()>, mpsc::Receiver<ServerStats>) {
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let (stats_tx, stats_rx) = mpsc::channel();
    thread::spawn(move || {
        thread::sleep(delay);
        let server = SlowServer::bind(addr, server_config("1ms", "none", 1))
            .expect("the late server binds its port");
        // Until the test is done (or gives up: the sender is dropped).
        let _ = stop_rx.recv();
        let _ = stats_tx.send(server.shutdown());
    });
    (stop_tx, stats_rx)
}

#[test]
fn a_server_that_starts_300_ms_after_the_client_loses_nothing() {
    let addr = vacant_addr();
    let (stop, stats) = server_later(addr, 300 * MS);
    let (done, journal, connect_failures) = bounded(move || {
        let mut pool = new_pool(Backend::Epoll, addr, 4, |_| {});
        pool.keep_journal();
        let done = run_items(&mut pool, items(20, 1));
        let failures = pool.stats().connect_failures;
        (done, pool.journal().to_vec(), failures)
    });
    drop(stop);
    let served = stats
        .recv_timeout(Duration::from_secs(10))
        .expect("the server stops");
    assert!(
        done.iter().all(|c| c.outcome.is_ok()),
        "every item waited for the server"
    );
    assert_eq!(done.len(), 20);
    assert!(served.accepted >= 1);
    // Refused, then retried: not in a tight loop (20 items were waiting),
    // but a few probes, each after a longer wait than the one before.
    assert!(connect_failures >= 1);
    let waits: Vec<Duration> = journal
        .iter()
        .filter_map(|e| match e.what {
            Happening::ConnectFailed { retry_in, .. } => retry_in,
            _ => None,
        })
        .collect();
    assert!(
        connect_failures <= 10,
        "{connect_failures} connects in 300 ms is a storm: {waits:?}"
    );
    assert!(
        waits.windows(2).all(|w| w[0] <= w[1]),
        "backoff grows: {waits:?}"
    );
    let probes = journal
        .iter()
        .take_while(|e| !matches!(e.what, Happening::Connected(_)))
        .filter(|e| matches!(e.what, Happening::Connecting(_)))
        .count();
    assert!(probes <= 10, "{probes} connects before the server came");
}

#[test]
fn a_server_restarted_mid_run_fails_only_the_requests_in_flight() {
    let first = SlowServer::spawn(server_config("30ms", "none", 1)).expect("a server");
    let addr = first.addr();
    let (outcomes, in_flight_at_kill, reopened) = bounded(move || {
        let mut pool = new_pool(Backend::Epoll, addr, 4, |_| {});
        let work = items(40, 1);
        let mut queue = work.into_iter().peekable();
        let mut done = Vec::new();
        let mut first = Some(first);
        let mut in_flight_at_kill = 0;
        let mut restart = None;
        while queue.peek().is_some() || pool.outstanding() > 0 {
            while pool.waiting() < 4
                && let Some(item) = queue.next()
            {
                let checkout = pool.checkout().expect("checkout");
                pool.call(&checkout, item).expect("call");
            }
            pool.turn(&mut done).expect("turn");
            // After a few completions, kill the server between two turns
            // (its shutdown cuts every connection and closes the port), and
            // start a new one on the same port 50 ms later.
            if done.len() >= 8
                && let Some(server) = first.take()
            {
                in_flight_at_kill = pool.in_flight();
                server.shutdown();
                restart = Some(server_later(addr, 50 * MS));
            }
        }
        let opened = pool.stats().opened();
        drop(restart);
        (done, in_flight_at_kill, opened)
    });
    let failed: Vec<ErrorKind> = outcomes
        .iter()
        .filter_map(|c| c.outcome.as_ref().err().map(|f| f.kind))
        .collect();
    assert_eq!(outcomes.len(), 40, "one outcome per item");
    assert!(in_flight_at_kill > 0, "the kill happened mid-request");
    assert!(
        failed.len() <= in_flight_at_kill,
        "{} failed, {in_flight_at_kill} were in flight: {failed:?}",
        failed.len()
    );
    assert!(failed.iter().all(|&k| k == ErrorKind::Closed), "{failed:?}");
    assert!(reopened > 4, "the pool reconnected by itself");
}

#[test]
fn a_server_that_never_comes_fails_each_checkout_as_refused_in_a_few_probes() {
    let addr = vacant_addr();
    let (done, stats) = bounded(move || {
        let mut pool = new_pool(Backend::Poll, addr, 4, |c| {
            c.knobs.checkout_timeout = Some(200 * MS);
        });
        let done = run_items(&mut pool, items(8, 1));
        (done, pool.stats().clone())
    });
    assert_eq!(done.len(), 8);
    assert!(
        done.iter()
            .all(|c| c.outcome.as_ref().err().map(|f| f.kind) == Some(ErrorKind::Refused)),
        "{done:?}"
    );
    assert_eq!(stats.opened(), 0);
    // 10 ms, then about 20, 40, 80: a handful of probes over 200 ms.
    assert!(
        (1..=10).contains(&stats.connect_failures),
        "{}",
        stats.connections_line()
    );
}
