//! Stage 4 keeps the contract under every fault, on every backend.

use select::{Backend, Select};
use testbed::cli::Settings;
use testbed::conformance::{assert_conforms, assert_run_conforms, quick_settings};

#[test]
fn select_conforms() {
    assert_conforms(&Select {
        backend: Backend::Select,
    });
}

#[test]
fn poll_conforms() {
    assert_conforms(&Select {
        backend: Backend::Poll,
    });
}

#[test]
fn epoll_conforms() {
    assert_conforms(&Select {
        backend: Backend::Epoll,
    });
}

#[test]
fn the_pool_opens_connections_lazily_and_never_more_than_its_size() {
    for backend in Backend::ALL {
        let stage = Select { backend };
        // Fewer items than connections: only as many connections as items.
        let few = Settings {
            items: 3,
            conns: 8,
            ..quick_settings()
        };
        let execution = assert_run_conforms(&stage, &few);
        // Counted as accepted, not as a peak: a connection may finish its
        // one item and close before the server accepts the last.
        assert_eq!(execution.report.server_accepted, Some(3), "{backend}");
        // Many items: the size is the limit, and one database connection
        // records everything.
        let execution = assert_run_conforms(&stage, &quick_settings());
        assert_eq!(execution.report.server_accepted, Some(4), "{backend}");
        assert_eq!(execution.report.db_connections, 1, "{backend}");
        assert!(execution.rows.iter().all(|row| row.lane.0 < 4), "{backend}");
    }
}

#[test]
fn nak_and_ko_keep_the_connection() {
    // The source article `die`s on NAK and KO, and its dispose then drops the slot:
    // a reconnect per refusal. Here they are answers, and the connection
    // carries the next item.
    let settings = Settings {
        faults: "nak=0.2,ko=0.2".parse().expect("a fault spec"),
        ..quick_settings()
    };
    for backend in Backend::ALL {
        let execution = assert_run_conforms(&Select { backend }, &settings);
        assert!(
            execution.report.failed > 0,
            "{backend}: faults were injected"
        );
        assert_eq!(
            execution.report.stage_stats["pool"], "4 connections opened, 0 broke",
            "{backend}"
        );
    }
}
