//! The ring's promises, tested on real sockets: a buffer lent to the
//! kernel comes back only with its operation's completion, whether the
//! operation finished, was cancelled by a request, or by its linked
//! timeout; and a ring dropped with a read in flight waits for it.

use std::io::{self, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::time::Duration;

use uring::ring::{Completion, Op, Ring};

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
        let read = ring.recv(0, client.as_raw_fd(), vec![7; 64], None)?;
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
        let read = ring.recv(0, client.as_raw_fd(), vec![0; 64], None)?;
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
        ring.recv(0, client.as_raw_fd(), vec![0; 64], limit)?;
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
        ring.recv(0, client.as_raw_fd(), vec![0; 64], None)?;
        ring.submit()?;
        assert_eq!(ring.in_flight(), 1);
        // Drop cancels the read and waits for its completion before the
        // buffer is freed: this returns, and nothing writes freed memory.
        drop(ring);
        Ok(())
    })
}
