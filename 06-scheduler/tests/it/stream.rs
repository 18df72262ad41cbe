//! `FiberTcpStream` under 01-sync's request: concurrency, timeouts, errors.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use scheduler::{FiberTcpStream, Scheduler};
use testbed::conn::Conn;
use testbed::faults::FaultPlan;
use testbed::latency::LatencyModel;
use testbed::outcome::ErrorKind;
use testbed::protocol::Phases;
use testbed::server::{ServerConfig, SlowServer};
use testbed::testing::SynDropper;
use testbed::workload::items;

use crate::util::{run, server};

#[test]
fn many_fibers_wait_on_the_server_at_once() {
    let server = server(Duration::from_millis(20));
    let sched = Scheduler::new().expect("a scheduler");
    let ok = Rc::new(Cell::new(0));
    for item in items(50, 1) {
        let (sched2, ok, addr) = (sched.clone(), ok.clone(), server.addr());
        sched
            .spawn(move || {
                let stream = FiberTcpStream::connect(&sched2, addr).expect("connect");
                let outcome = sync::request(&mut Conn::new(stream), &item, Phases::Two);
                if outcome == Ok(item.expected_result()) {
                    ok.set(ok.get() + 1);
                }
            })
            .expect("spawn");
    }
    run(&sched);
    assert_eq!(ok.get(), 50);
    // All fifty were connected, and so waiting, at the same time.
    assert_eq!(server.stats().peak_conns, 50);
}

#[test]
fn a_hung_reply_times_out_as_a_timeout_failure() {
    let server = SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(Duration::from_millis(1)),
        faults: "hang=1".parse::<FaultPlan>().expect("a valid spec"),
        ..ServerConfig::default()
    })
    .expect("the embedded server starts");
    let sched = Scheduler::new().expect("a scheduler");
    let (sched2, addr) = (sched.clone(), server.addr());
    let outcome = sched
        .spawn(move || {
            let mut stream = FiberTcpStream::connect(&sched2, addr).expect("connect");
            stream.set_read_timeout(Some(Duration::from_millis(20)));
            sync::request(&mut Conn::new(stream), &items(1, 1)[0], Phases::One)
        })
        .expect("spawn");
    run(&sched);
    let outcome = outcome.try_join().expect("finished").expect("no panic");
    assert_eq!(outcome.map_err(|f| f.kind), Err(ErrorKind::Timeout));
}

#[test]
fn a_reply_and_its_close_in_one_event_still_end_the_stream() {
    // A peer that writes its last line and closes at once. If the line and
    // the FIN reach the reactor as ONE readiness event, the stream's
    // short-read shortcut takes the line, and the next read must find the
    // end of the stream rather than wait for an edge that never comes (with
    // the bug, that read ends in TimedOut after the read timeout).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("an address");
    let peer = std::thread::spawn(move || {
        use std::io::Write;
        let (mut socket, _) = listener.accept().expect("accept");
        std::thread::sleep(Duration::from_millis(30));
        socket.write_all(b"503 busy\n").expect("write");
        // Dropping the socket closes it right behind the line.
    });
    let sched = Scheduler::new().expect("a scheduler");
    let sched2 = sched.clone();
    let result = sched
        .spawn(move || {
            let mut stream = FiberTcpStream::connect(&sched2, addr).expect("connect");
            stream.set_read_timeout(Some(Duration::from_secs(1)));
            // This fiber is waiting to read when the line and the close come.
            let mut conn = Conn::new(stream);
            let first = conn.read_line().map_err(|e| e.to_string());
            let second = conn.read_line().map_err(|e| e.to_string());
            (first, second)
        })
        .expect("spawn");
    let sched3 = sched.clone();
    sched
        .spawn(move || {
            // Hold the whole thread (as a long computation in a fiber would)
            // while the peer writes and closes, so the reactor collects the
            // line and the close together in one event.
            sched3.sleep(Duration::from_millis(10));
            std::thread::sleep(Duration::from_millis(100));
        })
        .expect("spawn");
    run(&sched);
    peer.join().expect("the peer thread");
    let (first, second) = result.try_join().expect("finished").expect("no panic");
    assert_eq!(first, Ok(Some("503 busy".to_owned())));
    assert_eq!(second, Ok(None), "the end of the stream, not a timeout");
}

#[test]
fn a_refused_connect_is_an_error_not_a_hang() {
    let sched = Scheduler::new().expect("a scheduler");
    let sched2 = sched.clone();
    let result = sched
        .spawn(move || {
            // Port 1 on loopback: nothing listens there.
            let addr = "127.0.0.1:1".parse().expect("an address");
            FiberTcpStream::connect(&sched2, addr).map(|_| ())
        })
        .expect("spawn");
    run(&sched);
    let error = result
        .try_join()
        .expect("finished")
        .expect("no panic")
        .expect_err("refused");
    assert_eq!(error.kind(), std::io::ErrorKind::ConnectionRefused);
}

#[test]
fn a_connect_that_never_completes_times_out() {
    let dropper = SynDropper::new();
    let sched = Scheduler::new().expect("a scheduler");
    let sched2 = sched.clone();
    let result = sched
        .spawn(move || {
            let timeout = Duration::from_millis(50);
            FiberTcpStream::connect_timeout(&sched2, dropper.addr(), timeout).map(|_| ())
        })
        .expect("spawn");
    run(&sched);
    let error = result
        .try_join()
        .expect("finished")
        .expect("no panic")
        .expect_err("the handshake never completes");
    assert_eq!(error.kind(), std::io::ErrorKind::TimedOut, "{error}");
}

#[test]
fn io_wait_outside_a_fiber_is_an_error() {
    let server = server(Duration::from_millis(1));
    let sched = Scheduler::new().expect("a scheduler");
    let socket = mio::net::TcpStream::connect(server.addr()).expect("connect");
    let registered = sched.register(socket).expect("register");
    let error = registered
        .wait(scheduler::Direction::Readable, None)
        .expect_err("not in a fiber");
    assert_eq!(error.kind(), std::io::ErrorKind::Other);
}

#[test]
fn a_second_reader_on_one_socket_is_refused_not_forgotten() {
    let server = server(Duration::from_millis(1));
    let sched = Scheduler::new().expect("a scheduler");
    let socket = mio::net::TcpStream::connect(server.addr()).expect("connect");
    let registered = Rc::new(sched.register(socket).expect("register"));
    let waits: Vec<_> = (0..2)
        .map(|_| {
            let registered = registered.clone();
            sched
                .spawn(move || {
                    // Nothing will arrive: the first waits out its timeout.
                    registered
                        .wait(
                            scheduler::Direction::Readable,
                            Some(Duration::from_millis(20)),
                        )
                        .map_err(|e| e.kind())
                })
                .expect("spawn")
        })
        .collect();
    run(&sched);
    let results: Vec<_> = waits
        .into_iter()
        .map(|w| w.try_join().expect("finished").expect("no panic"))
        .collect();
    assert_eq!(
        results,
        [
            Err(std::io::ErrorKind::TimedOut),
            Err(std::io::ErrorKind::Other)
        ]
    );
}
