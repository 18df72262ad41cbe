//! `AsyncConn` and `request` against real sockets: both request shapes,
//! replies in pieces, a refused connect, and what a dropped request leaves.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use executor::{AsyncConn, Executor, request};
use testbed::faults::FaultPlan;
use testbed::latency::LatencyModel;
use testbed::outcome::ErrorKind;
use testbed::protocol::Phases;
use testbed::server::{ServerConfig, SlowServer};
use testbed::workload::items;

use crate::util::{HANG, block_on, server};

#[test]
fn both_request_shapes_get_the_right_answer_and_keep_the_connection() {
    let server = server(Duration::from_millis(1));
    let addr = server.addr();
    let (outcomes, reusable) = block_on(move |executor: &Executor| {
        let handle = executor.handle();
        async move {
            let mut conn = AsyncConn::connect(&handle, addr).await.expect("connects");
            let mut outcomes = Vec::new();
            for (item, phases) in items(2, 1).iter().zip([Phases::One, Phases::Two]) {
                outcomes.push(request(&mut conn, item, phases).await == Ok(item.expected_result()));
            }
            (outcomes, conn.is_reusable())
        }
    });
    assert_eq!(outcomes, [true, true]);
    assert!(reusable);
}

/// Every reply written in pieces with pauses between them (`trickle`):
/// half a line waits in the framer, and the request still succeeds.
#[test]
fn replies_that_trickle_in_are_put_together() {
    let server = SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(Duration::from_millis(1)),
        faults: "trickle=1.0".parse::<FaultPlan>().expect("a valid spec"),
        ..ServerConfig::default()
    })
    .expect("the server starts");
    let addr = server.addr();
    let right = block_on(move |executor: &Executor| {
        let handle = executor.handle();
        async move {
            let mut conn = AsyncConn::connect(&handle, addr).await.expect("connects");
            let mut right = 0;
            for item in &items(5, 2) {
                right += usize::from(
                    request(&mut conn, item, Phases::Two).await == Ok(item.expected_result()),
                );
            }
            right
        }
    });
    assert_eq!(right, 5);
}

#[test]
fn a_nak_is_an_answer_and_a_drop_breaks_the_connection() {
    for (faults, kind, reusable) in [
        ("nak=1.0", ErrorKind::Nak, true),
        ("drop=1.0", ErrorKind::Closed, false),
    ] {
        let server = SlowServer::spawn(ServerConfig {
            latency: LatencyModel::Fixed(Duration::from_millis(1)),
            faults: faults.parse::<FaultPlan>().expect("a valid spec"),
            ..ServerConfig::default()
        })
        .expect("the server starts");
        let addr = server.addr();
        let (got, kept) = block_on(move |executor: &Executor| {
            let handle = executor.handle();
            async move {
                let mut conn = AsyncConn::connect(&handle, addr).await.expect("connects");
                let outcome = request(&mut conn, &items(1, 3)[0], Phases::Two).await;
                (outcome.map_err(|f| f.kind), conn.is_reusable())
            }
        });
        assert_eq!((got, kept), (Err(kind), reusable), "{faults}");
    }
}

#[test]
fn a_refused_connect_is_the_connects_error() {
    // A port that was just free: nothing listens there any more.
    let addr = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a port");
    let kind = block_on(move |executor: &Executor| {
        let handle = executor.handle();
        async move {
            AsyncConn::connect(&handle, addr)
                .await
                .map(drop)
                .map_err(|e| e.kind())
        }
    });
    assert_eq!(kind, Err(std::io::ErrorKind::ConnectionRefused));
}

/// A peer that reads the `HEAD` and never answers. The request is dropped
/// by its timeout, mid-conversation: the connection is poisoned, and
/// dropping it (what the stage does with a poisoned connection) closes the
/// socket: the peer reads the end of the stream.
#[test]
fn a_dropped_request_poisons_its_connection_and_dropping_it_closes_it() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a listener");
    let addr = listener.local_addr().expect("an address");
    let (seen_tx, seen_rx) = mpsc::channel();
    let peer = std::thread::spawn(move || {
        let (stream, _) = listener.accept().expect("the client connects");
        stream.set_read_timeout(Some(HANG)).expect("a read timeout");
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        reader.read_line(&mut head).expect("the HEAD line");
        let _ = seen_tx.send(head);
        // Never answer; wait for the client to close.
        let mut rest = Vec::new();
        reader.read_to_end(&mut rest).map(|_| rest)
    });
    let (elapsed, poisoned, reusable) = block_on(move |executor: &Executor| {
        let handle = executor.handle();
        async move {
            let mut conn = AsyncConn::connect(&handle, addr).await.expect("connects");
            let item = &items(1, 4)[0];
            let limit = Duration::from_millis(20);
            let elapsed = handle
                .timeout(limit, request(&mut conn, item, Phases::Two))
                .await
                .is_err();
            let state = (elapsed, conn.is_poisoned(), conn.is_reusable());
            drop(conn);
            state
        }
    });
    assert!(elapsed && poisoned && !reusable);
    assert_eq!(seen_rx.recv_timeout(HANG).ok().as_deref(), Some("HEAD 0\n"));
    let rest = peer
        .join()
        .expect("the peer ends")
        .expect("it reads the close, not a timeout");
    assert!(rest.is_empty(), "nothing more was sent: {rest:?}");
}
