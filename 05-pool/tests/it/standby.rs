//! Connections that die while they sit in the pool: a standby the server
//! closes is a closed connection, replaced at once; a standby the server
//! turns away with `503 busy` is a failed connect, and the pool backs off
//! (longer each time, until the server answers a call); replacements that
//! die unused, one after another, hold the standbys back for a backoff,
//! but never a checkout.

use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use pool::Backend;
use pool::journal::{Entry, Happening};
use pool::stats::CloseReason;
use testbed::outcome::ErrorKind;
use testbed::server::{ServerConfig, SlowServer};
use testbed::workload::items;

use crate::util::{bounded, new_pool, server_config};

/// Long enough never to fire during a test. It is set only so that every
/// standby has a deadline: a pool with no deadline and nothing on the wire
/// does not wait at all (its `turn` returns at once), and would never see
/// the server close its idle connections.
const NEVER: Duration = Duration::from_secs(600);

/// The connect failures in a journal.
fn connect_failures(journal: &[Entry]) -> Vec<&Happening> {
    journal
        .iter()
        .map(|e| &e.what)
        .filter(|what| matches!(what, Happening::ConnectFailed { .. }))
        .collect()
}

#[test]
fn standbys_the_server_closes_are_replaced_at_once_not_failed_connects() {
    for backend in Backend::ALL {
        let config = server_config("1ms", "none", 1);
        let first = SlowServer::spawn(config).expect("a server");
        let addr = first.addr();
        let (stats, journal, refilling, outcome) = bounded(move || {
            let mut pool = new_pool(backend, addr, 2, |c| {
                c.knobs.min_idle = 2;
                c.knobs.idle_timeout = Some(NEVER);
            });
            pool.keep_journal();
            let mut done = Vec::new();
            while pool.idle() < 2 {
                pool.turn(&mut done).expect("turn");
            }
            // The server goes away and a new one takes its port before the
            // pool looks again: both standbys are closed under it (the end
            // of the stream), and a connect would work at once.
            drop(first);
            let second = SlowServer::bind(addr, config).expect("the new server binds the port");
            while pool.stats().closed().total() < 2 {
                pool.turn(&mut done).expect("turn");
            }
            // In the turn that saw the second close, the pool is already
            // opening its replacements: no backoff holds them back.
            let refilling = pool.connections();
            let checkout = pool.checkout().expect("checkout");
            pool.call(&checkout, items(1, 1).remove(0)).expect("call");
            drop(checkout);
            pool.drain(&mut done).expect("drain");
            let outcome = done.pop().map(|c| c.outcome);
            // A second restart, after the server has answered a call: its
            // closes start a wave of their own, and are replaced at once too
            // (not taken for replacements of the first wave's that died).
            drop(second);
            let third = SlowServer::bind(addr, config).expect("the third server binds the port");
            while pool.stats().closed().total() < 4 {
                pool.turn(&mut done).expect("turn");
            }
            let refilling = refilling.min(pool.connections());
            drop(third);
            (
                pool.stats().clone(),
                pool.journal().to_vec(),
                refilling,
                outcome,
            )
        });
        assert_eq!(
            connect_failures(&journal),
            Vec::<&Happening>::new(),
            "{backend}: the standbys were connected; their end is no failed connect"
        );
        assert_eq!(
            stats.connect_failures,
            0,
            "{backend}: {}",
            stats.connections_line()
        );
        assert_eq!(
            stats.closed().get(CloseReason::Error),
            4,
            "{backend}: {}",
            stats.connections_line()
        );
        assert_eq!(refilling, 2, "{backend}: both replacements opening, twice");
        assert_eq!(standbys_held(&journal), Vec::<Duration>::new(), "{backend}");
        assert!(
            outcome.as_ref().is_some_and(Result::is_ok),
            "{backend}: {outcome:?}"
        );
    }
}

#[test]
fn a_standby_the_server_turns_away_with_503_is_a_failed_connect() {
    for backend in Backend::ALL {
        // One connection at a time: the pool's second standby gets `503
        // busy` as soon as the server accepts it. A server per backend: the
        // server notices a client's close only when it next reads, so the
        // previous pool's connection could still count against the limit.
        let server = SlowServer::spawn(ServerConfig {
            max_conns: Some(1),
            ..server_config("1ms", "none", 1)
        })
        .expect("a server");
        let addr = server.addr();
        let (stats, journal) = bounded(move || {
            let mut pool = new_pool(backend, addr, 2, |c| {
                c.knobs.min_idle = 2;
                c.knobs.idle_timeout = Some(NEVER);
            });
            pool.keep_journal();
            let mut done = Vec::new();
            while pool.stats().connect_failures == 0 {
                pool.turn(&mut done).expect("turn");
            }
            (pool.stats().clone(), pool.journal().to_vec())
        });
        let failed = connect_failures(&journal);
        assert!(
            matches!(
                failed.first(),
                Some(Happening::ConnectFailed {
                    kind: ErrorKind::Refused,
                    retry_in: Some(_),
                    ..
                })
            ),
            "{backend}: the refusal closed the gate for a backoff: {failed:?}"
        );
        assert_eq!(stats.connect_failures, 1, "{backend}");
        assert_eq!(
            stats.closed().get(CloseReason::Error),
            1,
            "{backend}: the refused connection is closed"
        );
    }
}

#[test]
fn a_503_in_answer_to_the_first_call_is_a_failed_connect_too() {
    let server = SlowServer::spawn(ServerConfig {
        max_conns: Some(1),
        ..server_config("20ms", "none", 1)
    })
    .expect("a server");
    let addr = server.addr();
    let (done, stats) = bounded(move || {
        let mut pool = new_pool(Backend::Epoll, addr, 2, |_| {});
        let work = items(2, 1);
        let (a, b) = (pool.checkout().expect("a"), pool.checkout().expect("b"));
        pool.call(&a, work[0].clone()).expect("call on a");
        pool.call(&b, work[1].clone()).expect("call on b");
        let mut done = Vec::new();
        pool.drain(&mut done).expect("drain");
        (done, pool.stats().clone())
    });
    drop(server);
    let refused: Vec<_> = done
        .iter()
        .filter(|c| c.outcome.as_ref().err().map(|f| f.kind) == Some(ErrorKind::Refused))
        .collect();
    assert_eq!(refused.len(), 1, "{done:?}");
    assert!(refused[0].slot.is_some(), "the call was sent, and refused");
    assert_eq!(stats.connect_failures, 1, "{}", stats.connections_line());
}

/// A server that accepts every connection and closes it at once, unused,
/// as a proxy with nothing behind it does.
struct AcceptAndClose {
    addr: std::net::SocketAddr,
    stop: Arc<AtomicBool>,
}

impl AcceptAndClose {
    fn spawn() -> AcceptAndClose {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("an address");
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        thread::spawn(move || {
            for conn in listener.incoming() {
                drop(conn);
                if stopping.load(Ordering::SeqCst) {
                    return;
                }
            }
        });
        AcceptAndClose { addr, stop }
    }
}

impl Drop for AcceptAndClose {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr); // Wakes the accept loop.
    }
}

/// The standbys' backoffs in a journal.
fn standbys_held(journal: &[Entry]) -> Vec<Duration> {
    journal
        .iter()
        .filter_map(|e| match e.what {
            Happening::StandbysHeld { retry_in } => Some(retry_in),
            _ => None,
        })
        .collect()
}

#[test]
fn standbys_a_server_drops_unused_are_reopened_after_a_growing_backoff() {
    for backend in Backend::ALL {
        let server = AcceptAndClose::spawn();
        let addr = server.addr;
        let (journal, elapsed, opening_for_checkout) = bounded(move || {
            let mut pool = new_pool(backend, addr, 2, |c| {
                c.knobs.min_idle = 2;
                c.knobs.idle_timeout = Some(NEVER);
            });
            pool.keep_journal();
            let start = Instant::now();
            let mut done = Vec::new();
            // Without a backoff, a thousand closes take a few hundred ms.
            while standbys_held(pool.journal()).len() < 5 {
                pool.turn(&mut done).expect("turn");
                assert!(
                    pool.stats().closed().total() < 1000,
                    "{backend}: the standbys churn without a pause"
                );
            }
            let elapsed = start.elapsed();
            // While the standbys are held back (their timer cannot have
            // fired before its time), a checkout is not.
            loop {
                pool.turn(&mut done).expect("turn");
                let held_until = pool.journal().iter().rev().find_map(|e| match e.what {
                    Happening::StandbysHeld { retry_in } => Some(e.at + retry_in),
                    _ => None,
                });
                if pool.connections() == 0 && held_until > Some(Instant::now()) {
                    break;
                }
            }
            let checkout = pool.checkout().expect("checkout");
            let opening_for_checkout = pool.connections();
            drop(checkout);
            (pool.journal().to_vec(), elapsed, opening_for_checkout)
        });
        let held = standbys_held(&journal);
        assert!(
            held.windows(2).all(|pair| pair[1] >= pair[0]),
            "{backend}: each backoff at least as long as the last: {held:?}"
        );
        // Base 10 ms, doubling, each drawn between half and all of its
        // ceiling: the fifth is at least 80 ms.
        assert!(
            held[4] >= Duration::from_millis(80),
            "{backend}: the backoff grows: {held:?}"
        );
        let waited: Duration = held[..4].iter().sum();
        assert!(elapsed >= waited, "{backend}: {elapsed:?} < {waited:?}");
        assert_eq!(
            connect_failures(&journal),
            Vec::<&Happening>::new(),
            "{backend}"
        );
        assert_eq!(
            opening_for_checkout, 1,
            "{backend}: a checkout opens at once"
        );
    }
}

#[test]
fn a_server_that_turns_every_connection_away_is_probed_less_and_less_often() {
    // One connection allowed, and the test holds it: every connection the
    // pool opens completes its handshake, then gets `503 busy`.
    let server = SlowServer::spawn(ServerConfig {
        max_conns: Some(1),
        ..server_config("1ms", "none", 1)
    })
    .expect("a server");
    let addr = server.addr();
    let squatter = TcpStream::connect(addr).expect("the one connection");
    let journal = bounded(move || {
        let mut pool = new_pool(Backend::Epoll, addr, 1, |c| {
            c.knobs.min_idle = 1;
            c.knobs.idle_timeout = Some(NEVER);
        });
        pool.keep_journal();
        let mut done = Vec::new();
        while pool.stats().connect_failures < 5 {
            pool.turn(&mut done).expect("turn");
        }
        pool.journal().to_vec()
    });
    drop(squatter);
    let retries: Vec<Duration> = connect_failures(&journal)
        .into_iter()
        .filter_map(|what| match what {
            Happening::ConnectFailed {
                kind: ErrorKind::Refused,
                retry_in,
                ..
            } => *retry_in,
            _ => None,
        })
        .collect();
    // Base 10 ms, doubling, each drawn between half and all of its
    // ceiling: the fifth is at least 80 ms, the first at most 10.
    assert_eq!(retries.len(), 5, "{journal:?}");
    assert!(retries[4] >= Duration::from_millis(80), "{retries:?}");
    assert!(
        retries.windows(2).all(|pair| pair[1] >= pair[0]),
        "{retries:?}"
    );
}
