//! The ring's promises, tested on real sockets: a buffer lent to the
//! kernel comes back only with its operation's completion, whether the
//! operation finished, was cancelled by a request, or by its linked
//! timeout; and a ring dropped with a read in flight waits for it.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use uring::ring::{Completion, Op, Ring, SharedFd};

use crate::util::bounded;

/// A connected pair on loopback: the client end, and the peer's.
fn pair() -> io::Result<(TcpStream, TcpStream)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let client = TcpStream::connect(listener.local_addr()?)?;
    let (peer, _) = listener.accept()?;
    Ok((client, peer))
}

/// Submits and waits until the ring holds nothing, returning every
/// completion of a caller's operation.
fn drain(ring: &mut Ring) -> io::Result<Vec<Completion>> {
    let mut done = Vec::new();
    while ring.in_flight() > 0 {
        ring.submit_and_wait()?;
        ring.reap(&mut done);
    }
    Ok(done)
}

/// The buffer a completed `recv` gave back.
fn buffer(completion: &Completion) -> &[u8] {
    match &completion.op {
        Op::Recv(buf) => buf,
        other => panic!("not a recv: {other:?}"),
    }
}

#[test]
fn a_cancelled_read_gives_its_buffer_back_with_its_completion() -> io::Result<()> {
    bounded(|| {
        let (client, _peer) = pair()?; // The peer says nothing.
        let mut ring = Ring::new(8)?;
        let read = ring.recv(0, &SharedFd::new(client), vec![7; 64], None)?;
        ring.submit()?;
        ring.cancel(read)?;
        let done = drain(&mut ring)?;
        assert_eq!(done.len(), 1, "the read, and only the read, completes");
        assert_eq!(done[0].id, read);
        assert!(done[0].cancelled(), "{:?}", done[0].result);
        assert_eq!(buffer(&done[0]), &[7; 64], "the same buffer, untouched");
        assert_eq!(ring.stats().cancels, 1);
        Ok(())
    })
}

#[test]
fn a_cancel_that_loses_the_race_leaves_the_read_its_bytes() -> io::Result<()> {
    bounded(|| {
        let (client, mut peer) = pair()?;
        peer.write_all(b"OK\n")?;
        // Blocks until the bytes are in the client's receive buffer.
        client.peek(&mut [0; 3])?;
        let mut ring = Ring::new(8)?;
        // Both in one submission: the read is issued first and finds its
        // bytes at once, so the cancel finds nothing left to cancel.
        let read = ring.recv(0, &SharedFd::new(client), vec![0; 64], None)?;
        ring.cancel(read)?;
        let done = drain(&mut ring)?;
        assert_eq!(done.len(), 1);
        assert_eq!(
            done[0].result.as_ref().ok(),
            Some(&3),
            "{:?}",
            done[0].result
        );
        assert_eq!(&buffer(&done[0])[..3], b"OK\n");
        Ok(())
    })
}

#[test]
fn a_linked_timeout_cancels_a_silent_read() -> io::Result<()> {
    bounded(|| {
        let (client, _peer) = pair()?;
        let mut ring = Ring::new(8)?;
        let limit = Some(Duration::from_millis(10));
        ring.recv(0, &SharedFd::new(client), vec![0; 64], limit)?;
        let done = drain(&mut ring)?;
        assert_eq!(done.len(), 1, "the timeout's own completion stays inside");
        assert!(done[0].cancelled(), "{:?}", done[0].result);
        let stats = ring.stats();
        assert_eq!((stats.timeouts_fired, stats.cancels), (1, 0));
        assert_eq!(stats.submitted, 2, "the read and its timeout");
        Ok(())
    })
}

#[test]
fn a_ring_dropped_with_a_read_in_flight_waits_for_it() -> io::Result<()> {
    bounded(|| {
        let (client, _peer) = pair()?;
        let mut ring = Ring::new(8)?;
        ring.recv(0, &SharedFd::new(client), vec![0; 64], None)?;
        ring.submit()?;
        assert_eq!(ring.in_flight(), 1);
        // Drop cancels the read and waits for its completion before the
        // buffer is freed: this returns, and nothing writes freed memory.
        drop(ring);
        Ok(())
    })
}

#[test]
fn a_queued_send_goes_to_its_own_socket_even_when_the_caller_lets_go_first() -> io::Result<()> {
    bounded(|| {
        let (a, mut a_peer) = pair()?;
        let b_listener = TcpListener::bind("127.0.0.1:0")?;
        let mut ring = Ring::new(8)?;
        let a = SharedFd::new(a);
        // Queued, not submitted: the kernel has not seen it, only its number.
        ring.send(0, &a, b"GET 17 lane-a-secret\n".to_vec(), 0)?;
        // The caller lets go of socket A (an early return, a panic, a lane
        // that closes), and a new socket is made: had A's descriptor
        // closed, the new one would take its number, the lowest free one.
        drop(a);
        let b = TcpStream::connect(b_listener.local_addr()?)?;
        let (mut b_peer, _) = b_listener.accept()?;
        // Dropping the ring submits what is queued and waits for it.
        drop(ring);
        b_peer.set_nonblocking(true)?;
        let mut got = [0; 64];
        match b_peer.read(&mut got) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            other => panic!(
                "A's send reached B's peer: {other:?} {:?}",
                String::from_utf8_lossy(&got)
            ),
        }
        let mut line = [0; 21];
        a_peer.read_exact(&mut line)?;
        assert_eq!(
            &line, b"GET 17 lane-a-secret\n",
            "the send went to A, its own socket"
        );
        drop(b);
        Ok(())
    })
}
