//! Every timeout of the pool, one test each: read (and that a late reply
//! never reaches the next request), idle, min idle, max uses.

use std::time::Instant;

use pool::journal::Happening;
use pool::stats::CloseReason;
use pool::{Backend, TimedPool};
use testbed::cli::Settings;
use testbed::conformance::quick_settings;
use testbed::harness::execute;
use testbed::latency::LatencyModel;
use testbed::protocol::{Phase, Phases};
use testbed::workload::items;

use crate::util::{MS, bounded, new_pool, run_items, server};

#[test]
fn a_late_reply_never_reaches_the_next_request() {
    // One connection only: if a connection that timed out were reused, the
    // late reply would be read as the next item's answer, and the report
    // would find a wrong result.
    // Slow replies take 600 ms, fast ones 1 ms, and the read timeout sits
    // far from both (250 ms), so a loaded machine cannot move a reply
    // across it.
    let latency: LatencyModel = "bimodal:0.25:600ms:1ms".parse().expect("a latency spec");
    let settings = Settings {
        items: 40,
        conns: 1,
        phases: Phases::One,
        latency,
        read_timeout: Some(250 * MS),
        ..quick_settings()
    };
    let work = items(settings.items, settings.seed);
    let slow: Vec<bool> = work
        .iter()
        .map(|item| latency.sample(settings.seed, item.id, Phase::Get) > 250 * MS)
        .collect();
    let timeouts = slow.iter().filter(|&&s| s).count() as u64;
    assert!(timeouts > 3, "the seed gives slow replies");

    for backend in Backend::ALL {
        let stage = TimedPool {
            backend,
            ..TimedPool::default()
        };
        let execution = execute(&stage, &settings).expect("the run finishes");
        let report = &execution.report;
        assert_eq!((report.lost, report.wrong), (0, 0), "{backend}:\n{report}");
        assert_eq!(report.errors.get("timeout"), Some(&timeouts), "{backend}");
        assert_eq!(report.ok, settings.items as u64 - timeouts, "{backend}");
        // Every timeout closed its connection; a new one opened for the
        // next item (none after the last, if it timed out).
        let reopened = timeouts - u64::from(slow[slow.len() - 1]);
        assert_eq!(report.server_accepted, Some(1 + reopened), "{backend}");
    }
}

#[test]
fn a_read_timeout_measures_silence_not_the_whole_request() {
    // Each phase takes 300 ms, the whole request at least 600 ms (a
    // server's sleep is never early). A timeout of 570 ms that measured the
    // whole request would fail every one, always; measuring silence, a
    // request finishes unless a reply comes 270 ms late: the margin goes
    // to the side a loaded machine eats into (a 450 ms timeout, half-way,
    // failed here once while four builds ran beside the tests).
    let server = server("300ms", "none", 1);
    let addr = server.addr();
    let done = bounded(move || {
        let mut pool = new_pool(Backend::Epoll, addr, 4, |c| {
            c.read_timeout = Some(570 * MS);
        });
        run_items(&mut pool, items(8, 1))
    });
    assert!(done.iter().all(|c| c.outcome.is_ok()), "{done:?}");
}

#[test]
fn idle_connections_time_out_while_the_busy_one_keeps_working() {
    // The busy connection must never sit idle for the idle timeout between
    // two items, even on a loaded machine: 100 ms of margin for that.
    let server = server("5ms", "none", 1);
    let addr = server.addr();
    let idle_timeout = 100 * MS;
    bounded(move || {
        let mut pool = new_pool(Backend::Epoll, addr, 4, |c| {
            c.knobs.idle_timeout = Some(idle_timeout);
        });
        pool.keep_journal();
        // A burst opens all four connections...
        run_items(&mut pool, items(8, 1));
        assert_eq!(pool.connections(), 4);
        // ...then one item at a time for at least 300 ms (30 items, two
        // 5 ms service times each). The idle list is a stack: each item
        // takes the connection the previous one returned, so the other
        // three sit idle and time out although traffic never stops.
        let sequential = Instant::now();
        let mut slots = Vec::new();
        for item in items(38, 1).split_off(8) {
            slots.extend(run_items(&mut pool, vec![item]).into_iter().map(|c| c.slot));
        }
        assert!(sequential.elapsed() > 2 * idle_timeout);
        assert_eq!(pool.stats().closed().get(CloseReason::Idle), 3);
        assert_eq!(pool.connections(), 1);
        assert!(
            slots.windows(2).all(|w| w[0] == w[1]),
            "one connection did all: {slots:?}"
        );
        // No connection was closed before its idle time was up.
        let journal = pool.journal();
        for (i, entry) in journal.iter().enumerate() {
            if let Happening::Closed {
                slot,
                reason: CloseReason::Idle,
            } = entry.what
            {
                let returned = journal[..i]
                    .iter()
                    .rev()
                    .find(|e| e.what == Happening::Returned(slot))
                    .expect("an idle connection was returned first");
                assert!(entry.at - returned.at >= idle_timeout);
            }
        }
    });
}

#[test]
fn min_idle_keeps_connections_ready_and_safe_from_the_idle_timeout() {
    let server = server("1ms", "none", 1);
    let addr = server.addr();
    bounded(move || {
        let mut pool = new_pool(Backend::Poll, addr, 5, |c| {
            c.knobs.min_idle = 3;
            c.knobs.idle_timeout = Some(5 * MS);
        });
        let mut done = Vec::new();
        // Opened at creation, before any checkout.
        while pool.idle() < 3 {
            pool.turn(&mut done).expect("turn");
        }
        assert_eq!(pool.connections(), 3);
        // A checkout takes one; the pool opens another to stay 3 ahead.
        let held = pool.checkout().expect("checkout");
        assert_eq!(pool.stats().queued, 0, "granted at once, no handshake");
        while pool.idle() < 3 {
            pool.turn(&mut done).expect("turn");
        }
        assert_eq!(pool.connections(), 4);
        drop(held);
        // Four idle, one above the minimum: only that one times out.
        while pool.connections() > 3 {
            pool.turn(&mut done).expect("turn");
        }
        let start = Instant::now();
        while start.elapsed() < 20 * MS {
            pool.turn(&mut done).expect("turn");
        }
        assert_eq!(pool.connections(), 3);
        assert_eq!(pool.stats().closed().get(CloseReason::Idle), 1);
    });
}

#[test]
fn max_uses_retires_each_connection_after_that_many_requests() {
    let server = server("1ms", "none", 1);
    let addr = server.addr();
    let (done, journal, stats) = bounded(move || {
        let mut pool = new_pool(Backend::Epoll, addr, 4, |c| {
            c.knobs.max_uses = Some(5);
        });
        pool.keep_journal();
        let done = run_items(&mut pool, items(40, 1));
        (done, pool.journal().to_vec(), pool.stats().clone())
    });
    assert!(done.iter().all(|c| c.outcome.is_ok()));
    // 40 requests, at most 5 per connection: at least 8 connections, and
    // at most 4 more (the ones still open at the end, partly used).
    assert!(
        (8..=12).contains(&stats.opened()),
        "{}",
        stats.connections_line()
    );
    assert!(stats.closed().get(CloseReason::MaxUses) >= 4);
    // Count the requests of each connection's life.
    let mut lives = Vec::new();
    for (i, entry) in journal.iter().enumerate() {
        if let Happening::Connected(slot) = entry.what {
            let end = journal[i..]
                .iter()
                .find(|e| matches!(e.what, Happening::Closed { slot: s, .. } if s == slot))
                .map(|e| e.at);
            lives.push((slot, entry.at, end));
        }
    }
    for (slot, born, died) in lives {
        let carried = done
            .iter()
            .filter(|c| {
                c.slot == Some(slot) && c.started >= born && died.is_none_or(|d| c.started < d)
            })
            .count();
        assert!(carried <= 5, "slot {slot:?} carried {carried}");
    }
}
