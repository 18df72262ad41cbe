//! The echo's tests: each promise of the docs against real sockets and
//! fibers, several clients at once, a peer that closes or resets, and the
//! CPU the echo uses while it waits (it must sleep, not spin).

use super::*;
use scheduler::FiberTcpStream;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// Sends `line`, reads the same number of bytes back.
fn round_trip(stream: &mut FiberTcpStream, line: &[u8]) -> io::Result<Vec<u8>> {
    stream.write_all(line)?;
    let mut back = vec![0; line.len()];
    stream.read_exact(&mut back)?;
    Ok(back)
}

fn listener(sched: &Scheduler) -> FiberListener {
    let any = "127.0.0.1:0".parse().expect("an address");
    FiberListener::bind(sched, any).expect("bind")
}

/// Runs `test` (a scheduler and its fibers) on a thread of its own, so
/// that an echo which never returns, or never yields, fails the test
/// after 2 s instead of hanging it.
fn bounded<T: Send + 'static>(test: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(test());
    });
    finished
        .recv_timeout(Duration::from_secs(2))
        .expect("the echo and its clients were not done within 2 s: an echo waits for news that never comes, or never lets its clients run")
}

#[test]
fn every_client_gets_its_own_bytes_back() {
    let backs = bounded(|| {
        let sched = Scheduler::new().expect("a scheduler");
        let listener = listener(&sched);
        let addr = listener.local_addr().expect("an address");
        let sched2 = sched.clone();
        sched
            .spawn(move || serve(&sched2, &listener, 3))
            .expect("spawn");
        let clients: Vec<_> = (0..3)
            .map(|n| {
                let sched2 = sched.clone();
                sched
                    .spawn(move || -> io::Result<Vec<u8>> {
                        let mut stream = FiberTcpStream::connect(&sched2, addr)?;
                        let line = format!("client {n} says hello\n");
                        round_trip(&mut stream, line.as_bytes())
                    })
                    .expect("spawn")
            })
            .collect();
        sched.run().expect("the scheduler finishes");
        clients
            .into_iter()
            .map(|client| client.try_join().expect("finished").expect("no panic").ok())
            .collect::<Vec<_>>()
    });
    for (n, back) in backs.into_iter().enumerate() {
        assert_eq!(
            back,
            Some(format!("client {n} says hello\n").into_bytes()),
            "client {n} should get its own line back, whole"
        );
    }
}

#[test]
fn a_big_message_comes_back_whole() {
    // Many reads' worth, and more than the socket buffers hold, so the
    // echo must read, write back part, wait, and go on.
    let (back, echoed) = bounded(|| {
        let message: Vec<u8> = (0..2_000_000u32).map(|n| (n % 251) as u8).collect();
        let sched = Scheduler::new().expect("a scheduler");
        let listener = listener(&sched);
        let addr = listener.local_addr().expect("an address");
        let server = sched
            .spawn(move || {
                let conn = listener.accept()?;
                // A small send buffer, and a client that starts reading
                // late: the echo's writes must fill it, take part of a
                // chunk, and wait for room.
                socket2::SockRef::from(conn.get_ref()).set_send_buffer_size(4096)?;
                echo(conn)
            })
            .expect("spawn");
        let sched2 = sched.clone();
        let length = message.len();
        let client = sched
            .spawn(move || -> io::Result<Vec<u8>> {
                let stream = Rc::new(FiberTcpStream::connect(&sched2, addr)?);
                // Write from one fiber while this one reads: writing all of
                // it first would fill both socket buffers and wait forever.
                let writer = {
                    let stream = stream.clone();
                    sched2.spawn(move || (&*stream).write_all(&message))?
                };
                let mut back = vec![0; length];
                // Long enough for the writer and the echo to fill the
                // buffers, even on a busy machine.
                sched2.sleep(Duration::from_millis(200));
                (&*stream).read_exact(&mut back)?;
                writer.join().map_err(io::Error::other)??;
                Ok(back)
            })
            .expect("spawn");
        sched.run().expect("the scheduler finishes");
        let back = client.try_join().expect("finished").expect("no panic");
        let echoed = server.try_join().and_then(Result::ok).and_then(Result::ok);
        (back, echoed)
    });
    let expected: Vec<u8> = (0..2_000_000u32).map(|n| (n % 251) as u8).collect();
    let back = back.expect("the client should read back as many bytes as it sent");
    assert!(
        back == expected,
        "2 MB should come back byte for byte, through partial writes and waits for room"
    );
    assert_eq!(
        echoed,
        Some(2_000_000),
        "once the client closed, echo should return how many bytes it echoed"
    );
}

#[test]
fn the_last_bytes_before_a_half_close_are_echoed_too() {
    // Each client gets a first line back (its echo is now waiting for
    // more), then sends a last line and shuts its side at once: the
    // echo wakes to bytes *and* the peer's close together, and must
    // read to the end of the stream, not stop at the close. Twenty
    // clients, so that the two arriving together is not left to luck.
    const CLIENTS: usize = 20;
    let backs = bounded(|| {
        let sched = Scheduler::new().expect("a scheduler");
        let listener = listener(&sched);
        let addr = listener.local_addr().expect("an address");
        let sched2 = sched.clone();
        sched
            .spawn(move || serve(&sched2, &listener, CLIENTS))
            .expect("spawn");
        let clients = std::thread::spawn(move || -> io::Result<Vec<Vec<u8>>> {
            let mut backs = Vec::new();
            for _ in 0..CLIENTS {
                let mut client = std::net::TcpStream::connect(addr)?;
                client.set_read_timeout(Some(Duration::from_secs(5)))?;
                client.write_all(b"ping\n")?;
                client.read_exact(&mut [0; 5])?;
                client.write_all(b"last\n")?;
                client.shutdown(std::net::Shutdown::Write)?;
                let mut back = Vec::new();
                client.read_to_end(&mut back)?;
                backs.push(back);
            }
            Ok(backs)
        });
        sched.run().expect("the scheduler finishes");
        clients.join().expect("the clients' thread")
    });
    let backs = backs.expect("every client's I/O");
    for (n, back) in backs.iter().enumerate() {
        assert_eq!(
            back, b"last\n",
            "client {n} sent a last line and shut its side: the echo should send the line back before it sees the end"
        );
    }
}

#[test]
fn a_client_that_resets_the_connection_ends_its_echo_with_an_error() {
    let (run, echoed) = bounded(|| {
        let sched = Scheduler::new().expect("a scheduler");
        let listener = listener(&sched);
        let addr = listener.local_addr().expect("an address");
        let server = sched
            .spawn(move || echo(listener.accept()?))
            .expect("spawn");
        // A plain blocking client on another thread: it gets its line
        // back, then closes with SO_LINGER 0, which sends a reset.
        std::thread::spawn(move || -> io::Result<()> {
            let mut client = std::net::TcpStream::connect(addr)?;
            client.set_read_timeout(Some(Duration::from_secs(5)))?;
            client.write_all(b"ping\n")?;
            client.read_exact(&mut [0; 5])?;
            socket2::SockRef::from(&client).set_linger(Some(Duration::ZERO))?;
            Ok(())
        });
        let run = sched.run().map(|_| ()).map_err(|e| e.to_string());
        (run, format!("{:?}", server.try_join()))
    });
    assert_eq!(run, Ok(()), "the scheduler should finish");
    assert!(
        echoed.starts_with("Some(Ok(Err("),
        "a reset connection should end the echo with the read's error, not: {echoed}"
    );
}

#[test]
fn a_client_that_resets_while_its_echo_is_written_ends_it_with_an_error() {
    // This time the client sends more than the echo can write back
    // into its small buffers and never reads, so the echo is writing
    // (or waiting for room) when the reset comes: its next write fails
    // for good.
    let (run, echoed) = bounded(|| {
        let sched = Scheduler::new().expect("a scheduler");
        let listener = listener(&sched);
        let addr = listener.local_addr().expect("an address");
        let server = sched
            .spawn(move || {
                let conn = listener.accept()?;
                socket2::SockRef::from(conn.get_ref()).set_send_buffer_size(4096)?;
                echo(conn)
            })
            .expect("spawn");
        std::thread::spawn(move || -> io::Result<()> {
            let client = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
            client.set_recv_buffer_size(4096)?;
            client.connect(&addr.into())?;
            let mut client = std::net::TcpStream::from(client);
            client.set_read_timeout(Some(Duration::from_secs(5)))?;
            client.write_all(&[b'x'; 64 * 1024])?;
            // The first bytes of the echo: it is writing now.
            client.peek(&mut [0; 1])?;
            socket2::SockRef::from(&client).set_linger(Some(Duration::ZERO))?;
            Ok(())
        });
        let run = sched.run().map(|_| ()).map_err(|e| e.to_string());
        (run, format!("{:?}", server.try_join()))
    });
    assert_eq!(run, Ok(()), "the scheduler should finish");
    assert!(
        echoed.starts_with("Some(Ok(Err("),
        "a write to a reset connection should end the echo with its error, not: {echoed}"
    );
}

#[test]
fn a_slow_client_holds_up_nobody() {
    let log = bounded(|| {
        let sched = Scheduler::new().expect("a scheduler");
        let listener = listener(&sched);
        let addr = listener.local_addr().expect("an address");
        let log = Rc::new(RefCell::new(Vec::new()));
        let sched2 = sched.clone();
        sched
            .spawn(move || serve(&sched2, &listener, 2))
            .expect("spawn");
        for (name, pause) in [("slow", 100), ("quick", 0)] {
            let (sched2, log) = (sched.clone(), log.clone());
            sched
                .spawn(move || -> io::Result<()> {
                    let mut stream = FiberTcpStream::connect(&sched2, addr)?;
                    sched2.sleep(Duration::from_millis(pause));
                    round_trip(&mut stream, b"ping\n")?;
                    log.borrow_mut().push(name);
                    Ok(())
                })
                .expect("spawn");
        }
        sched.run().expect("the scheduler finishes");
        log.take()
    });
    // The slow client connected first; the quick one was still served
    // first.
    assert_eq!(
        log,
        ["quick", "slow"],
        "the quick client should be served while the slow one takes its time"
    );
}

#[test]
fn an_echo_waiting_for_a_quiet_client_sleeps() {
    let back = testbed::testing::assert_quiet_within(
        Duration::from_secs(2),
        "the client never got its line back, sent after 200 ms of silence",
        "an echo waiting 200 ms for its client's first line",
        || {
            let sched = Scheduler::new().expect("a scheduler");
            let listener = listener(&sched);
            let addr = listener.local_addr().expect("an address");
            let server = sched
                .spawn(move || echo(listener.accept()?))
                .expect("spawn");
            let sched2 = sched.clone();
            let client = sched
                .spawn(move || -> io::Result<Vec<u8>> {
                    let mut stream = FiberTcpStream::connect(&sched2, addr)?;
                    sched2.sleep(Duration::from_millis(200));
                    round_trip(&mut stream, b"late\n")
                })
                .expect("spawn");
            sched.run().expect("the scheduler finishes");
            let echoed = server.try_join().and_then(Result::ok).and_then(Result::ok);
            (
                client.try_join().and_then(Result::ok).and_then(Result::ok),
                echoed,
            )
        },
    );
    assert_eq!(
        back,
        (Some(b"late\n".to_vec()), Some(5)),
        "the client should get its line back, and the echo count its 5 bytes"
    );
}

#[test]
fn a_client_that_pauses_between_lines_is_served_to_the_end() {
    let (backs, echoed) = bounded(|| {
        let sched = Scheduler::new().expect("a scheduler");
        let listener = listener(&sched);
        let addr = listener.local_addr().expect("an address");
        let server = sched
            .spawn(move || echo(listener.accept()?))
            .expect("spawn");
        let sched2 = sched.clone();
        let client = sched
            .spawn(move || -> io::Result<(Vec<u8>, Vec<u8>)> {
                let mut stream = FiberTcpStream::connect(&sched2, addr)?;
                let first = round_trip(&mut stream, b"first\n")?;
                // Nothing to read for a while: the client is not done.
                sched2.sleep(Duration::from_millis(100));
                let second = round_trip(&mut stream, b"second\n")?;
                Ok((first, second))
            })
            .expect("spawn");
        sched.run().expect("the scheduler finishes");
        (
            client.try_join().and_then(Result::ok).and_then(Result::ok),
            server.try_join().and_then(Result::ok).and_then(Result::ok),
        )
    });
    assert_eq!(
        backs,
        Some((b"first\n".to_vec(), b"second\n".to_vec())),
        "both lines should come back: a pause is not the end of the client (only a read of 0 is)"
    );
    assert_eq!(
        echoed,
        Some(13),
        "the echo should count the 13 bytes of both lines"
    );
}

#[test]
fn an_echo_stuck_on_a_full_socket_waits_for_room_not_for_bytes() {
    let back = testbed::testing::assert_quiet_within(
        Duration::from_secs(2),
        "the echo was never woken when the client made room by reading: does a blocked write wait for the socket to be writable?",
        "an echo waiting 200 ms for room to write",
        || {
            let sched = Scheduler::new().expect("a scheduler");
            let listener = listener(&sched);
            let addr = listener.local_addr().expect("an address");
            sched
                .spawn(move || {
                    let conn = listener.accept()?;
                    socket2::SockRef::from(conn.get_ref()).set_send_buffer_size(4096)?;
                    echo(conn)
                })
                .expect("spawn");
            // A client that sends everything, then neither sends nor
            // reads for 200 ms: the echo's writes fill the buffers.
            let client = std::thread::spawn(move || -> io::Result<usize> {
                let socket =
                    socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
                socket.set_recv_buffer_size(4096)?;
                socket.connect(&addr.into())?;
                let mut client = std::net::TcpStream::from(socket);
                client.set_read_timeout(Some(Duration::from_secs(2)))?;
                client.write_all(&[b'x'; 32 * 1024])?;
                std::thread::sleep(Duration::from_millis(200));
                // Then it reads slowly, so that the echo's last writes,
                // after it has read everything, find the buffers full:
                // then nothing is left to read, and only room to write
                // can wake it.
                let mut back = 0;
                let mut piece = [0; 1024];
                while back < 32 * 1024 {
                    client.read_exact(&mut piece)?;
                    back += piece.iter().filter(|&&b| b == b'x').count();
                    std::thread::sleep(Duration::from_millis(2));
                }
                Ok(back)
            });
            sched.run().expect("the scheduler finishes");
            client
                .join()
                .expect("the client finishes")
                .map_err(|e| e.kind())
        },
    );
    assert_eq!(
        back,
        Ok(32 * 1024),
        "all 32 KiB should come back once the client reads"
    );
}
