//! The pool's loop: `dispose` honours its timeout, `drain` returns when
//! nothing is left, and every callback is called exactly once.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use select::pool::{PoolConfig, SlotPool};
use select::{Backend, Selector};
use testbed::latency::LatencyModel;
use testbed::protocol::Phases;
use testbed::server::{ServerConfig, SlowServer};
use testbed::workload::items;

use crate::util::backends;

/// What counts as a slow item in the bimodal test below.
const SLOW: Duration = Duration::from_millis(150);

/// The slow server's service time: long next to the 10 ms waits of the
/// dispose test, with room to spare for a busy machine's delays.
const FAR: Duration = Duration::from_secs(1);

fn slow_server() -> SlowServer {
    SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(FAR),
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
        let mut pool = SlotPool::new(Selector::new(backend).expect("a selector"), config);
        // Nothing in flight: nothing to wait for, so no wait at all.
        let start = Instant::now();
        assert_eq!(pool.dispose(None).expect("dispose"), 0);
        assert!(start.elapsed() < FAR, "{backend}");

        for item in items(2, 1) {
            pool.submit(item, Box::new(|c| done.borrow_mut().push(c)))
                .expect("submit");
        }
        assert_eq!(pool.in_flight(), 2);
        // The replies are a second away: a 10 ms dispose comes back empty
        // handed (after the handshakes' events, at most), never late.
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(10) {
            pool.dispose(Some(Duration::from_millis(10)))
                .expect("dispose");
        }
        assert!(start.elapsed() < FAR, "{backend}: dispose overslept");
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

mod invariants {
    //! The pool's invariants under any mix of server behaviour: every item
    //! is reported exactly once, with the outcome the server forced, and
    //! the pool never holds more connections than its size.

    use std::collections::BTreeMap;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::thread;

    use proptest::prelude::*;
    use select::Backend;
    use testbed::conn::Conn;
    use testbed::outcome::ErrorKind;
    use testbed::protocol::{Phases, Reply};
    use testbed::workload::items;

    use crate::util::{correct_reply, read_request, run_pool};

    /// What the scripted server does with one request line.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Act {
        /// The right answer, written in `pieces` separate writes.
        Answer { pieces: usize },
        /// `NAK` to a `HEAD`, `500` to a `BODY`.
        Refuse,
        /// Close the connection instead of answering.
        Close,
        /// A line with a byte that is not printable, then close.
        Garbage,
    }

    fn act() -> impl Strategy<Value = Act> {
        prop_oneof![
            4 => (1usize..6).prop_map(|pieces| Act::Answer { pieces }),
            1 => Just(Act::Refuse),
            1 => Just(Act::Close),
            1 => Just(Act::Garbage),
        ]
    }

    /// The outcome kind the client must report for an item's two acts.
    fn expected(head: Act, body: Act) -> Option<ErrorKind> {
        let kind = |act, refusal| match act {
            Act::Answer { .. } => None,
            Act::Refuse => Some(refusal),
            Act::Close => Some(ErrorKind::Closed),
            Act::Garbage => Some(ErrorKind::Protocol),
        };
        kind(head, ErrorKind::Nak).or_else(|| kind(body, ErrorKind::Ko))
    }

    /// Serves every connection until told to stop, acting as `acts` says.
    fn serve(
        listener: TcpListener,
        acts: Arc<BTreeMap<(u64, bool), Act>>,
        stop: Arc<AtomicBool>,
        open: Arc<AtomicUsize>,
        peak: Arc<Mutex<usize>>,
    ) {
        for stream in listener.incoming() {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let now = open.fetch_add(1, Ordering::SeqCst) + 1;
            {
                let mut peak = peak.lock().expect("no panics while held");
                *peak = (*peak).max(now);
            }
            let (acts, open) = (acts.clone(), open.clone());
            thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(crate::util::PEER_TIMEOUT));
                let _ = stream.set_nodelay(true);
                // Counted out *before* the client can see the end of the
                // conversation, so a replacement never overlaps this count.
                let leave = || {
                    open.fetch_sub(1, Ordering::SeqCst);
                };
                session(&stream, &acts, &leave);
                drop(stream);
            });
        }
    }

    /// One connection; calls `leave` exactly once, before the client can
    /// tell that the connection is over.
    fn session(stream: &TcpStream, acts: &BTreeMap<(u64, bool), Act>, leave: &dyn Fn()) {
        let mut conn = Conn::new(stream);
        while let Ok(Some(request)) = read_request(&mut conn) {
            let Some((id, phase)) = request.phase() else {
                break;
            };
            let is_head = phase == testbed::protocol::Phase::Head;
            let act = acts
                .get(&(id.0, is_head))
                .copied()
                .unwrap_or(Act::Answer { pieces: 1 });
            let (line, pieces) = match act {
                Act::Answer { pieces } => (format!("{}\n", correct_reply(&request)), pieces),
                Act::Refuse if is_head => (format!("{}\n", Reply::Nak("no".into())), 1),
                Act::Refuse => (format!("{}\n", Reply::Failure("ko".into())), 1),
                Act::Close => break,
                Act::Garbage => {
                    leave();
                    let _ = (&*stream).write_all(b"200 \x01\n");
                    return;
                }
            };
            let size = line.len().div_ceil(pieces);
            for piece in line.as_bytes().chunks(size) {
                if (&*stream).write_all(piece).is_err() {
                    break;
                }
            }
        }
        leave();
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

        #[test]
        fn every_item_once_with_the_forced_outcome(
            script in proptest::collection::vec((act(), act()), 1..25),
            size in 1usize..5,
            backend in proptest::sample::select(Backend::ALL.to_vec()),
        ) {
            let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
            let addr = listener.local_addr().expect("addr");
            let mut acts = BTreeMap::new();
            for (i, &(head, body)) in script.iter().enumerate() {
                acts.insert((i as u64, true), head);
                acts.insert((i as u64, false), body);
            }
            let stop = Arc::new(AtomicBool::new(false));
            let open = Arc::new(AtomicUsize::new(0));
            let peak = Arc::new(Mutex::new(0));
            let server = {
                let (acts, stop, open, peak) = (Arc::new(acts), stop.clone(), open, peak.clone());
                thread::spawn(move || serve(listener, acts, stop, open, peak))
            };

            let work = items(script.len(), 1);
            let done = run_pool(backend, addr, size, Phases::Two, work.clone());

            stop.store(true, Ordering::SeqCst);
            let _ = TcpStream::connect(addr); // Wakes the accept loop.
            server.join().expect("the server thread");

            prop_assert_eq!(done.len(), work.len(), "every item reported");
            let mut seen = std::collections::BTreeSet::new();
            for (completion, _) in &done {
                prop_assert!(seen.insert(completion.item), "reported twice: {:?}", completion.item);
                let i = completion.item.0 as usize;
                let (head, body) = script[i];
                let got = completion.outcome.as_ref().map_err(|f| f.kind).err();
                prop_assert_eq!(got, expected(head, body), "item {} ({:?}, {:?})", i, head, body);
                if got.is_none() {
                    prop_assert_eq!(completion.outcome.clone(), Ok(work[i].expected_result()));
                }
                prop_assert!(completion.slot.index() < size);
            }
            prop_assert!(*peak.lock().expect("no panics while held") <= size);
        }
    }
}
