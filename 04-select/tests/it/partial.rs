//! Replies that do not arrive one line per read: split into single bytes,
//! or two in one segment. And the source article's bug, reproduced: a whole-line read
//! after "readable" stalls the loop behind one slow reply.

use std::net::TcpStream;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use select::event::{Interest, Token};
use select::{Backend, Selector};
use testbed::conn::Conn;
use testbed::framing::LineFramer;
use testbed::protocol::{Phases, Request};
use testbed::workload::items;

use crate::util::{FakeServer, backends, correct_reply, read_request, run_pool, trickle};

/// The pause between two bytes of a trickled reply: long enough for each
/// byte to leave in its own segment and be read on its own.
const BYTE_PAUSE: Duration = Duration::from_millis(1);

#[test]
fn replies_arriving_one_byte_at_a_time_complete() {
    for backend in backends() {
        let server = FakeServer::start(1, |_, stream| {
            let mut conn = Conn::new(&stream);
            while let Some(request) = read_request(&mut conn)? {
                let line = format!("{}\n", correct_reply(&request));
                trickle(&stream, line.as_bytes(), BYTE_PAUSE)?;
            }
            Ok(())
        });
        let work = items(3, 1);
        let done = run_pool(backend, server.addr, 1, Phases::Two, work.clone());
        server.finish();
        assert_eq!(done.len(), 3, "{backend}");
        for (completion, _) in done {
            let item = &work[completion.item.0 as usize];
            assert_eq!(completion.outcome, Ok(item.expected_result()), "{backend}");
        }
    }
}

#[test]
fn two_lines_in_one_segment_are_both_used() {
    for backend in backends() {
        // The server answers `HEAD` with `OK` *and* the final `200` in one
        // write: the second line is already in the client's buffer when it
        // sends `BODY`, and no event will ever announce it again.
        let server = FakeServer::start(1, |_, stream| {
            let mut conn = Conn::new(&stream);
            let Some(Request::Head(id)) = read_request(&mut conn)? else {
                return Err(std::io::Error::other("expected HEAD"));
            };
            let item = items(1, 1).remove(0);
            assert_eq!(id, item.id);
            let both = format!("OK\n200 {}\n", item.expected_result());
            conn.get_mut().write_all_bytes(both.as_bytes())?;
            // The client still sends its BODY, as the protocol says.
            let body = read_request(&mut conn)?;
            assert_eq!(body, Some(Request::Body(item.id, item.payload.clone())));
            // Then it closes (the pool's close), and nothing else comes.
            assert_eq!(read_request(&mut conn)?, None);
            Ok(())
        });
        let work = items(1, 1);
        let done = run_pool(backend, server.addr, 1, Phases::Two, work.clone());
        server.finish();
        assert_eq!(done.len(), 1, "{backend}");
        assert_eq!(
            done[0].0.outcome,
            Ok(work[0].expected_result()),
            "{backend}"
        );
    }
}

/// `write_all` on `&TcpStream` through the `Conn` wrapper.
trait WriteAllBytes {
    fn write_all_bytes(&mut self, bytes: &[u8]) -> std::io::Result<()>;
}

impl WriteAllBytes for &TcpStream {
    fn write_all_bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        std::io::Write::write_all(self, bytes)
    }
}

// ANCHOR: slow_and_fast
/// Two connections: item 0's reply trickles one byte every
/// [`SLOW_BYTE`] (about 0.3 s for the line); item 1's comes whole,
/// [`FAST_DELAY`] after its request, long after item 0's first byte.
fn slow_and_fast_server() -> FakeServer {
    FakeServer::start(2, |_, stream| {
        let mut conn = Conn::new(&stream);
        while let Some(request) = read_request(&mut conn)? {
            let line = format!("{}\n", correct_reply(&request));
            match request.phase() {
                Some((id, _)) if id.0 == 0 => trickle(&stream, line.as_bytes(), SLOW_BYTE)?,
                _ => {
                    std::thread::sleep(FAST_DELAY);
                    trickle(&stream, line.as_bytes(), Duration::ZERO)?;
                }
            }
        }
        Ok(())
    })
}
// ANCHOR_END: slow_and_fast

/// The pause between two bytes of the slow reply.
const SLOW_BYTE: Duration = Duration::from_millis(15);
/// How long the fast reply waits before it is sent whole.
const FAST_DELAY: Duration = Duration::from_millis(20);

// ANCHOR: article_style
/// **A deliberately naive reader, written the way the source article does it,
/// for this test only; it is not library code.** It asks the selector which
/// connections are readable, then reads a *whole line* from each, with a
/// blocking read, as Perl's `<$fh>` does. Returns when each connection's
/// line was complete, by connection index.
fn article_style_read_one_line_each(streams: &[TcpStream]) -> Vec<Instant> {
    let mut selector = Selector::new(Backend::Select).expect("select needs no setup");
    for (i, stream) in streams.iter().enumerate() {
        selector
            .add(stream.as_fd(), Token::new(i), Interest::Read)
            .expect("a low descriptor");
    }
    let mut finished = vec![None; streams.len()];
    let mut events = Vec::new();
    while finished.iter().any(Option::is_none) {
        selector.wait(&mut events, None).expect("select");
        for event in &events {
            let i = event.token.get();
            if finished[i].is_some() {
                continue;
            }
            // "Readable" means *some* bytes are there, not a whole line:
            // this read blocks until the line's end arrives, and every
            // other connection waits meanwhile.
            let mut framer = LineFramer::new();
            let line = framer.read_line(&mut &streams[i]).expect("a line");
            assert!(line.is_some());
            finished[i] = Some(Instant::now());
            selector
                .delete(streams[i].as_fd())
                .expect("registered above");
        }
    }
    finished.into_iter().flatten().collect()
}
// ANCHOR_END: article_style

#[test]
fn an_article_style_whole_line_read_stalls_every_other_connection() {
    let server = slow_and_fast_server();
    let work = items(2, 1);
    let streams: Vec<TcpStream> = work
        .iter()
        .map(|item| {
            let stream = TcpStream::connect(server.addr).expect("connect to the fake server");
            stream
                .set_read_timeout(Some(crate::util::PEER_TIMEOUT))
                .expect("set a read timeout");
            let line = format!("{}\n", Request::Get(item.id, item.payload.clone()));
            std::io::Write::write_all(&mut &stream, line.as_bytes()).expect("send GET");
            stream
        })
        .collect();
    let finished = article_style_read_one_line_each(&streams);
    drop(streams);
    server.finish();
    // Item 1's reply was complete about 20 ms in, but the reader was stuck
    // inside item 0's line until its last byte, about 0.3 s in.
    assert!(
        finished[1] >= finished[0],
        "the fast reply was read only after the slow one: {:?}",
        finished[1].duration_since(finished[0])
    );
}

#[test]
fn the_pool_reads_the_fast_reply_while_the_slow_one_trickles() {
    for backend in backends() {
        let server = slow_and_fast_server();
        let done = run_pool(backend, server.addr, 2, Phases::One, items(2, 1));
        server.finish();
        let at = |id: u64| {
            done.iter()
                .find(|(c, _)| c.item.0 == id)
                .map(|(c, t)| {
                    assert!(c.outcome.is_ok(), "{backend}: {c:?}");
                    *t
                })
                .expect("both items completed")
        };
        assert!(
            at(1) < at(0),
            "{backend}: the fast item finished first, not behind the slow one"
        );
    }
}

#[test]
fn a_reply_and_its_close_in_one_event_reach_the_end_of_the_stream() {
    // The connection stops reading after a short read (the buffer is empty,
    // the next read would only say WouldBlock). A close that came with the
    // data in the same event must still be seen: under edge-triggered epoll
    // no later event would announce it.
    for backend in backends() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("an address");
        let mut conn = select::connection::Connection::connect(addr).expect("connect");
        let (peer, _) = listener.accept().expect("accept");
        {
            use std::io::Write;
            (&peer).write_all(b"503 busy\n").expect("write");
        }
        drop(peer);
        let mut selector = Selector::new(backend).expect("a selector");
        selector
            .add(conn.fd(), Token::new(0), Interest::ReadWrite)
            .expect("add");
        // Both the line and the close are in the socket before the first
        // wait, so the backend reports them in one event. A level-triggered
        // backend would report the close again; epoll would not, and with
        // the bug this loop runs to its deadline.
        let deadline = Instant::now() + Duration::from_secs(2);
        let mut events = Vec::new();
        let mut reply = None;
        while !conn.at_eof() && Instant::now() < deadline {
            selector
                .wait(&mut events, Some(Duration::from_millis(100)))
                .expect("wait");
            for event in &events {
                conn.on_ready(event).expect("a clean read");
            }
            // Take the lines as a slot does: the connection reads on behind
            // each one, and finds the close behind the last.
            while let Some(line) = conn.next_reply().expect("a reply") {
                reply.get_or_insert(line);
            }
        }
        assert!(reply.is_some(), "{backend}");
        assert!(
            conn.at_eof(),
            "{backend}: the close was lost behind the short read"
        );
        selector.delete(conn.fd()).expect("delete");
    }
}
