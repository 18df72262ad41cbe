//! Write readiness: a peer that does not read fills the socket buffers, a
//! send then takes only part of a line, and the rest must wait in the
//! outbox for "writable", in order.

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::time::Instant;

use select::Selector;
use select::connection::Connection;
use select::event::{Event, Interest, Token};
use testbed::protocol::{ItemId, Payload, Request};

use crate::util::{DEADLINE, backends};

/// Enough 500-byte lines to fill any loopback socket's buffers (a few MiB)
/// several times over; the test stops queueing as soon as one send is cut.
const MAX_LINES: usize = 100_000;

#[test]
fn a_full_send_buffer_queues_the_rest_until_writable() {
    for backend in backends() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let client = TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
        let (peer, _) = listener.accept().expect("accept");
        peer.set_read_timeout(Some(DEADLINE)).expect("timeout");
        let mut conn = Connection::from_connected(client).expect("non-blocking");

        // The peer reads nothing yet: queue lines until a send is cut short.
        let request = Request::Get(ItemId(7), Payload::new("x".repeat(500)).expect("payload"));
        let mut sent = 0;
        while conn.queued() == 0 && sent < MAX_LINES {
            conn.send_line(&request)
                .expect("a send never fails for a full buffer");
            sent += 1;
        }
        assert!(conn.queued() > 0, "{backend}: {sent} lines all fitted");
        assert_eq!(conn.interest(), Interest::ReadWrite, "{backend}");

        // Now the peer reads; the client writes only when told "writable".
        let expected = request.to_string();
        let reader = std::thread::spawn(move || {
            let lines = BufReader::new(peer).lines().take(sent);
            lines
                .map(|l| l.expect("a line") == expected)
                .filter(|&ok| ok)
                .count()
        });
        let mut selector = Selector::new(backend).expect("a selector");
        selector
            .add(conn.fd(), Token::new(0), conn.interest())
            .expect("register");
        let mut events: Vec<Event> = Vec::new();
        let start = Instant::now();
        while conn.queued() > 0 {
            assert!(
                start.elapsed() < DEADLINE,
                "{backend}: stuck with {} bytes",
                conn.queued()
            );
            selector.wait(&mut events, Some(DEADLINE)).expect("wait");
            for event in &events {
                conn.on_ready(event).expect("the peer is reading");
            }
        }
        selector.delete(conn.fd()).expect("registered");
        drop(conn);
        assert_eq!(
            reader.join().expect("the reader"),
            sent,
            "{backend}: every line intact, in order"
        );
    }
}
