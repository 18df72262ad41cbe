//! A peer that never stops sending: the client's memory stays bounded, the
//! flooding connection ends as a protocol failure, and every other
//! connection's items still finish, on every backend.
//!
//! The danger is a reader that reads until `WouldBlock` before it takes a
//! single line out: a peer that keeps the receive buffer full makes that
//! loop hold everything it sent, and keeps the one thread of the pool on
//! that connection while the others wait.

use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::{self, JoinHandle};

use select::Selector;
use select::connection::Connection;
use select::event::{Event, Interest, Token};
use testbed::conn::Conn;
use testbed::framing::{MAX_LINE, READ_CHUNK};
use testbed::outcome::ErrorKind;
use testbed::protocol::Phases;
use testbed::workload::items;

use crate::util::{DEADLINE, PEER_TIMEOUT, backends, correct_reply, read_request, run_pool};

/// The most a connection may hold on its read side: one read's worth of
/// bytes on top of a partial line.
const BOUND: usize = READ_CHUNK + MAX_LINE;

/// A flooding peer gives up after this many bytes: more than every
/// loopback buffer between the two ends holds (a few MiB), several times
/// over, and a cap that keeps a broken client from eating the machine.
const FLOOD_CAP: usize = 32 << 20;

/// The flood goes out in writes of about this size.
const BATCH: usize = 16 << 10;

/// How much the peer has written before the client reads at all: well
/// under what the kernel buffers for a connection that is not read
/// (128 KiB of receive buffer by default), so the peer cannot block
/// before it gets there, and eight times [`BOUND`].
const PRIMED: usize = 40 << 10;

/// What a flooding peer sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flood {
    /// The same valid line, again and again.
    Lines,
    /// One line that never ends: `200 ` and then `x` for ever.
    OneLine,
}

/// Writes `first` once, then `again` repeatedly, until the client closes
/// the connection (a write fails: `Ok` with the bytes written) or
/// [`FLOOD_CAP`] bytes went out (`Err`: the client read them all without
/// closing). `written` hears the running total after each batch.
fn flood(
    mut stream: &TcpStream,
    first: &[u8],
    again: &[u8],
    written: &mpsc::Sender<usize>,
) -> io::Result<usize> {
    // A client that stops reading without closing would block this peer
    // for ever; the timeout turns that into an error of the test.
    stream.set_write_timeout(Some(PEER_TIMEOUT))?;
    // Whole copies of `again` only: a batch cut short would cut a line.
    let batch: Vec<u8> = again.repeat(BATCH.div_ceil(again.len()));
    let mut total = 0;
    let mut next: &[u8] = first;
    while total < FLOOD_CAP {
        match stream.write_all(next) {
            Ok(()) => total += next.len(),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(io::Error::other(format!(
                    "the client stopped reading without closing, after {total} bytes"
                )));
            }
            // Reset or broken pipe: the client closed the connection.
            Err(_) => return Ok(total),
        }
        let _ = written.send(total);
        next = &batch;
    }
    Err(io::Error::other(format!(
        "the client read the whole flood ({FLOOD_CAP} bytes) and kept the connection"
    )))
}

#[test]
fn a_flooded_connection_reads_a_line_at_a_time_and_holds_no_more() -> io::Result<()> {
    const LINE: &[u8] = b"200 0000000000000001\n";
    // More lines than the buffers held when the client started reading:
    // the client must keep up with the flood, a read at a time.
    const LINES_TO_TAKE: usize = 16 * (BATCH / LINE.len());
    for kind in [Flood::Lines, Flood::OneLine] {
        for backend in backends() {
            let listener = TcpListener::bind("127.0.0.1:0")?;
            let client = TcpStream::connect(listener.local_addr()?)?;
            let (peer, _) = listener.accept()?;
            let (written_tx, written_rx) = mpsc::channel();
            let flooder = thread::spawn(move || match kind {
                Flood::Lines => flood(&peer, LINE, LINE, &written_tx),
                Flood::OneLine => flood(&peer, b"200 ", b"x", &written_tx),
            });
            // Let the flood fill the socket before the client reads anything.
            while written_rx.recv_timeout(DEADLINE).expect("the peer writes") < PRIMED {}

            let mut conn = Connection::from_connected(client)?;
            let mut selector = Selector::new(backend)?;
            selector.add(conn.fd(), Token::new(0), Interest::Read)?;
            let mut events: Vec<Event> = Vec::new();
            let mut next_event = |conn: &mut Connection| -> io::Result<()> {
                selector.wait(&mut events, Some(DEADLINE))?;
                let event = events.first().expect("the flood makes the socket readable");
                conn.on_ready(event)
            };
            next_event(&mut conn)?;
            // The work of one event: what it read. The memory: what is held.
            let read = conn.bytes_moved();
            assert!(
                read <= BOUND as u64,
                "{backend}, {kind:?}: one event read {read} bytes before a single line was taken"
            );
            assert!(conn.buffered() <= BOUND, "{backend}, {kind:?}");
            if kind == Flood::OneLine {
                let failure = conn.next_reply().expect_err("a line past MAX_LINE");
                assert_eq!(failure.kind, ErrorKind::Protocol, "{backend}");
            } else {
                let mut taken = 0;
                while taken < LINES_TO_TAKE {
                    match conn.next_reply() {
                        Ok(Some(_)) => taken += 1,
                        // The socket is empty for now: the next event (a
                        // new edge, under epoll) says when more has come.
                        Ok(None) => next_event(&mut conn)?,
                        Err(failure) => panic!("{backend}: valid lines, but {failure}"),
                    }
                    assert!(
                        conn.buffered() <= BOUND,
                        "{backend}: {} bytes held after {taken} lines",
                        conn.buffered()
                    );
                }
            }
            drop(conn);
            let written = flooder.join().expect("the flooder does not panic")?;
            assert!(written < FLOOD_CAP, "{backend}, {kind:?}");
        }
    }
    Ok(())
}

/// A server whose first connection floods (after reading one request) and
/// whose other connections answer correctly, for as many connections as
/// the pool opens.
struct FloodServer {
    addr: SocketAddr,
    /// What the flooding session returned (see [`flood`]).
    flooded: mpsc::Receiver<io::Result<usize>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl FloodServer {
    fn start(kind: Flood) -> io::Result<FloodServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let (flooded_tx, flooded) = mpsc::channel();
        let stopping = stop.clone();
        let accept = thread::spawn(move || {
            for (index, stream) in listener.incoming().enumerate() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(PEER_TIMEOUT));
                let _ = stream.set_nodelay(true);
                if index == 0 {
                    let flooded_tx = flooded_tx.clone();
                    thread::spawn(move || {
                        let _ = flooded_tx.send(flood_session(&stream, kind));
                    });
                } else {
                    thread::spawn(move || answer_session(&stream));
                }
            }
        });
        Ok(FloodServer {
            addr,
            flooded,
            stop,
            accept: Some(accept),
        })
    }

    /// The flooding session's result, once the client has dealt with it.
    fn flooded(&self) -> io::Result<usize> {
        self.flooded
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|_| panic!("the flooding session did not end within {DEADLINE:?}"))
    }
}

impl Drop for FloodServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

/// Reads one request, answers it, and then floods.
fn flood_session(stream: &TcpStream, kind: Flood) -> io::Result<usize> {
    let mut conn = Conn::new(stream);
    let request = read_request(&mut conn)?
        .ok_or_else(|| io::Error::other("the client closed before its request"))?;
    let (first, again) = match kind {
        Flood::Lines => {
            let line = format!("{}\n", correct_reply(&request)).into_bytes();
            (line.clone(), line)
        }
        Flood::OneLine => (b"200 ".to_vec(), b"x".to_vec()),
    };
    let (written_tx, _ignored) = mpsc::channel();
    flood(stream, &first, &again, &written_tx)
}

/// Answers every request correctly until the client closes.
fn answer_session(mut stream: &TcpStream) {
    let mut conn = Conn::new(stream);
    while let Ok(Some(request)) = read_request(&mut conn) {
        let reply = format!("{}\n", correct_reply(&request));
        if stream.write_all(reply.as_bytes()).is_err() {
            break;
        }
    }
}

#[test]
fn a_flooding_peer_fails_alone_and_every_other_item_finishes() -> io::Result<()> {
    const ITEMS: usize = 12;
    for kind in [Flood::Lines, Flood::OneLine] {
        for backend in backends() {
            let server = FloodServer::start(kind)?;
            let done = run_pool(backend, server.addr, 3, Phases::One, items(ITEMS, 1));
            let written = server.flooded()?;
            assert!(written < FLOOD_CAP, "{backend}, {kind:?}");
            assert_eq!(
                done.len(),
                ITEMS,
                "{backend}, {kind:?}: every item reported"
            );
            let failed: Vec<_> = done
                .iter()
                .filter_map(|(c, _)| c.outcome.as_ref().err())
                .collect();
            match kind {
                // The first line answered the item; the next one, sent
                // when nothing was asked, ends the connection, not an item.
                Flood::Lines => assert!(failed.is_empty(), "{backend}: {failed:?}"),
                Flood::OneLine => {
                    assert_eq!(failed.len(), 1, "{backend}: {failed:?}");
                    assert_eq!(failed[0].kind, ErrorKind::Protocol, "{backend}");
                }
            }
        }
    }
    Ok(())
}
