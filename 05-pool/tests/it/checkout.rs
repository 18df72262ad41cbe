//! Exclusive checkouts: calls in order on one connection, FIFO grants, a
//! fatal error that stays, no reuse after an error unless configured.

use pool::stats::CloseReason;
use pool::{Backend, FinishedCall};
use testbed::faults::FaultPlan;
use testbed::outcome::ErrorKind;
use testbed::protocol::Phases;
use testbed::workload::{Item, items};

use crate::util::{MS, bounded, new_pool, server};

/// The first `n` items (of seed 1) for which the server, with `plan` and
/// seed 1, forces `kind` (`None`: a success).
fn items_that(plan: &str, kind: Option<ErrorKind>, n: usize) -> Vec<Item> {
    let plan: FaultPlan = plan.parse().expect("a fault spec");
    let found: Vec<Item> = items(1000, 1)
        .into_iter()
        .filter(|item| plan.expected(1, item.id, Phases::Two) == kind)
        .take(n)
        .collect();
    assert_eq!(found.len(), n, "not enough items fail with {kind:?}");
    found
}

fn kinds(done: &[FinishedCall]) -> Vec<Option<ErrorKind>> {
    done.iter()
        .map(|c| c.outcome.as_ref().err().map(|f| f.kind))
        .collect()
}

#[test]
fn calls_on_a_checkout_run_in_order_on_one_connection() {
    for backend in Backend::ALL {
        let server = server("2ms", "none", 1);
        let addr = server.addr();
        let done = bounded(move || {
            // ANCHOR: in_order
            let mut pool = new_pool(backend, addr, 3, |_| {});
            let (a, b) = (pool.checkout().expect("a"), pool.checkout().expect("b"));
            let work = items(10, 1);
            for pair in work.chunks(2) {
                pool.call(&a, pair[0].clone()).expect("call on a");
                pool.call(&b, pair[1].clone()).expect("call on b");
            }
            let mut done = Vec::new();
            pool.drain(&mut done).expect("drain");
            // ANCHOR_END: in_order
            done
        });
        assert!(done.iter().all(|c| c.outcome.is_ok()), "{backend}");
        for checkout in [0, 1] {
            let mine: Vec<&FinishedCall> = done
                .iter()
                .filter(|c| c.checkout.number() == checkout)
                .collect();
            let ids: Vec<u64> = mine.iter().map(|c| c.item.0).collect();
            let mut in_order = ids.clone();
            in_order.sort_unstable();
            assert_eq!(ids, in_order, "{backend}: calls finish in the order made");
            assert!(mine.windows(2).all(|w| w[0].started < w[1].started));
            assert!(
                mine.windows(2).all(|w| w[0].slot == w[1].slot),
                "{backend}: one connection"
            );
        }
        // Two checkouts, two connections, although the pool may open three.
        assert_eq!(server.shutdown().accepted, 2, "{backend}");
    }
}

#[test]
fn a_second_checkout_waits_until_the_first_is_dropped() {
    let server = server("2ms", "none", 1);
    let addr = server.addr();
    bounded(move || {
        let mut pool = new_pool(Backend::Epoll, addr, 1, |_| {});
        let work = items(2, 1);
        let first = pool.checkout().expect("first");
        pool.call(&first, work[0].clone()).expect("call");
        let second = pool.checkout().expect("second");
        pool.call(&second, work[1].clone()).expect("call");
        let mut done = Vec::new();
        while done.is_empty() {
            pool.turn(&mut done).expect("turn");
        }
        // The first call is done, but its checkout still holds the only
        // connection: the second waits.
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].checkout, first.id());
        assert_eq!((pool.waiting(), pool.outstanding()), (1, 1));
        drop(first);
        pool.drain(&mut done).expect("drain");
        assert_eq!(done.len(), 2);
        assert!(done[1].outcome.is_ok());
        assert_eq!(done[1].checkout, second.id());
        assert_eq!(done[1].slot, done[0].slot, "the same connection, handed on");
        assert!(done[1].started > done[0].started);
    });
}

#[test]
fn a_fatal_error_stays_on_its_checkout() {
    let server = server("1ms", "hang=0.3", 1);
    let addr = server.addr();
    let hung = items_that("hang=0.3", Some(ErrorKind::Timeout), 1).remove(0);
    let fine = items_that("hang=0.3", None, 4);
    bounded(move || {
        // Far above the 1 ms service time: only the hang may time out.
        let mut pool = new_pool(Backend::Epoll, addr, 2, |c| {
            c.read_timeout = Some(150 * MS);
        });
        let checkout = pool.checkout().expect("checkout");
        for item in [fine[0].clone(), hung.clone(), fine[1].clone()] {
            pool.call(&checkout, item).expect("call");
        }
        let mut done = Vec::new();
        pool.drain(&mut done).expect("drain");
        assert_eq!(
            kinds(&done),
            [None, Some(ErrorKind::Timeout), Some(ErrorKind::Timeout)]
        );
        assert_eq!(done[1].item, hung.id);
        assert!(done[1].slot.is_some(), "the hung call ran");
        assert_eq!(done[2].slot, None, "the call after it never ran");
        // From now on every call on this checkout fails at once, with the
        // same kind, and runs nowhere.
        pool.call(&checkout, fine[2].clone()).expect("call");
        let mut later = Vec::new();
        pool.turn(&mut later).expect("turn");
        assert_eq!(kinds(&later), [Some(ErrorKind::Timeout)]);
        assert_eq!(later[0].slot, None);
        assert_eq!(pool.stats().closed().get(CloseReason::Timeout), 1);
        // Another checkout is not affected.
        drop(checkout);
        let other = pool.checkout().expect("other");
        pool.call(&other, fine[3].clone()).expect("call");
        pool.drain(&mut later).expect("drain");
        assert!(later[1].outcome.is_ok());
    });
}

#[test]
fn after_an_error_answer_the_connection_is_closed_unless_configured() {
    let server = server("1ms", "nak=0.3", 1);
    let addr = server.addr();
    let refused = items_that("nak=0.3", Some(ErrorKind::Nak), 1).remove(0);
    let fine = items_that("nak=0.3", None, 1).remove(0);
    for reuse in [false, true] {
        let (refused, fine) = (refused.clone(), fine.clone());
        bounded(move || {
            let mut pool = new_pool(Backend::Poll, addr, 2, |c| {
                c.knobs.reuse_after_error = reuse;
            });
            let checkout = pool.checkout().expect("checkout");
            pool.call(&checkout, refused).expect("call");
            pool.call(&checkout, fine).expect("call");
            let mut done = Vec::new();
            pool.drain(&mut done).expect("drain");
            // A NAK is an answer, not a fatal error: the next call runs on
            // the same connection.
            assert_eq!(kinds(&done), [Some(ErrorKind::Nak), None]);
            assert_eq!(done[0].slot, done[1].slot);
            drop(checkout);
            pool.turn(&mut done).expect("turn: the drop is seen");
            let closed = pool.stats().closed().get(CloseReason::Error);
            if reuse {
                assert_eq!((closed, pool.idle()), (0, 1));
            } else {
                assert_eq!((closed, pool.connections()), (1, 0));
            }
        });
    }
}

#[test]
fn queued_checkouts_give_up_in_fifo_order_with_pool_timeout() {
    let server = server("1ms", "none", 1);
    let addr = server.addr();
    let limit = 60 * MS;
    bounded(move || {
        let mut pool = new_pool(Backend::Epoll, addr, 1, |c| {
            c.knobs.checkout_timeout = Some(limit);
        });
        let holder = pool.checkout().expect("holder");
        let work = items(4, 1);
        let waiting: Vec<_> = work[..3]
            .iter()
            .map(|item| {
                let checkout = pool.checkout().expect("checkout");
                pool.call(&checkout, item.clone()).expect("call");
                checkout
            })
            .collect();
        let mut done = Vec::new();
        pool.drain(&mut done).expect("drain");
        assert_eq!(kinds(&done), [Some(ErrorKind::PoolTimeout); 3]);
        let order: Vec<_> = done.iter().map(|c| c.checkout).collect();
        let asked: Vec<_> = waiting.iter().map(|c| c.id()).collect();
        assert_eq!(order, asked, "first queued, first to give up");
        let stats = pool.stats();
        // The holder queued too, for the connection's handshake.
        assert_eq!((stats.queued, stats.gave_up), (4, 3));
        // Three of the four waits were the full checkout timeout.
        assert!(stats.wait_percentile(50.0).is_some_and(|w| w >= limit));
        // The connection was busy, not broken: once the holder lets go, the
        // next checkout gets it at once.
        drop(holder);
        let next = pool.checkout().expect("next");
        pool.call(&next, work[3].clone()).expect("call");
        pool.drain(&mut done).expect("drain");
        assert!(done[3].outcome.is_ok());
        assert_eq!(pool.stats().queued, 4, "the last one did not queue");
    });
}

#[test]
fn a_pool_that_can_never_run_a_call_says_so_instead_of_hanging() {
    let server = server("1ms", "none", 1);
    let addr = server.addr();
    bounded(move || {
        let mut pool = new_pool(Backend::Epoll, addr, 1, |c| {
            c.knobs.checkout_timeout = None;
        });
        let _holder = pool.checkout().expect("holder");
        let mut done = Vec::new();
        // Let the holder's connection open first.
        while pool.idle() + pool.connections() == 0 || pool.in_flight() > 0 {
            pool.turn(&mut done).expect("turn");
        }
        let waiting = pool.checkout().expect("waiting");
        pool.call(&waiting, items(1, 1).remove(0)).expect("call");
        let error = loop {
            match pool.turn(&mut done) {
                Ok(()) => continue,
                Err(error) => break error,
            }
        };
        assert!(error.to_string().contains("held by a checkout"), "{error}");
    });
}

#[test]
fn dropping_a_checkout_with_calls_queued_still_runs_them() {
    let server = server("1ms", "none", 1);
    let addr = server.addr();
    bounded(move || {
        let mut pool = new_pool(Backend::Select, addr, 1, |_| {});
        let checkout = pool.checkout().expect("checkout");
        for item in items(3, 1) {
            pool.call(&checkout, item).expect("call");
        }
        drop(checkout);
        let mut done = Vec::new();
        pool.drain(&mut done).expect("drain");
        assert_eq!(kinds(&done), [None, None, None]);
        assert_eq!(pool.idle(), 1, "then the connection went back");
    });
}

#[test]
#[should_panic(expected = "belongs to another pool")]
fn a_checkout_of_another_pool_is_refused() {
    let server = server("1ms", "none", 1);
    let mut one = new_pool(Backend::Poll, server.addr(), 1, |_| {});
    let mut other = new_pool(Backend::Poll, server.addr(), 1, |_| {});
    let checkout = one.checkout().expect("checkout");
    let _ = other.call(&checkout, items(1, 1).remove(0));
}
