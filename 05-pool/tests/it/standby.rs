//! Connections that die while they sit in the pool: a standby the server
//! closes is a closed connection, replaced at once; a standby the server
//! turns away with `503 busy` is a failed connect, and the pool backs off.

use std::time::Duration;

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
            drop(second);
            let outcome = done.pop().map(|c| c.outcome);
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
            2,
            "{backend}: {}",
            stats.connections_line()
        );
        assert_eq!(refilling, 2, "{backend}: both replacements opening");
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
