//! Non-blocking connects: a refusal fails the item that waited for the
//! connection, never the pool; a broken slot is recreated on demand.

use std::net::TcpListener;

use select::{Backend, Select};
use testbed::cli::Settings;
use testbed::conformance::quick_settings;
use testbed::harness::execute;
use testbed::outcome::ErrorKind;
use testbed::protocol::Phases;
use testbed::server::{ServerConfig, SlowServer};
use testbed::workload::items;

use crate::util::{backends, run_pool};

#[test]
fn a_refused_connect_fails_its_item_not_the_pool() {
    // A port that was just free: nothing listens there any more.
    let addr = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr")
    };
    for backend in backends() {
        let done = run_pool(backend, addr, 2, Phases::Two, items(5, 1));
        assert_eq!(done.len(), 5, "{backend}: every item is reported");
        for (completion, _) in &done {
            let kind = completion.outcome.as_ref().map_err(|f| f.kind);
            assert_eq!(kind, Err(ErrorKind::Refused), "{backend}");
        }
    }
}

#[test]
fn a_connection_beyond_the_servers_limit_fails_only_its_items() {
    // The server takes one connection and turns the second away with 503.
    for backend in backends() {
        let server = SlowServer::spawn(ServerConfig {
            max_conns: Some(1),
            ..ServerConfig::default()
        })
        .expect("the embedded server starts");
        let done = run_pool(backend, server.addr(), 2, Phases::One, items(6, 1));
        server.shutdown();
        assert_eq!(done.len(), 6, "{backend}");
        let ok = done.iter().filter(|(c, _)| c.outcome.is_ok()).count();
        let refused = done
            .iter()
            .filter(|(c, _)| matches!(&c.outcome, Err(f) if f.kind == ErrorKind::Refused))
            .count();
        assert!(ok >= 1, "{backend}: slot 0 kept working");
        assert_eq!(ok + refused, 6, "{backend}: {done:?}");
    }
}

#[test]
fn an_unreachable_server_fails_every_item_and_loses_none() {
    let settings = Settings {
        server: Some("127.0.0.1:1".parse().expect("an address")),
        items: 10,
        ..quick_settings()
    };
    let execution = execute(
        &Select {
            backend: Backend::Poll,
        },
        &settings,
    )
    .expect("a run");
    assert_eq!(execution.report.lost, 0);
    assert_eq!(execution.report.errors.get("refused"), Some(&10));
}
