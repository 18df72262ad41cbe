//! The two rules of a non-blocking socket that every later rung follows:
//! when a read has emptied the socket, and when a `connect` has finished.
//!
//! Both look like details and both have bitten this project: each rule was
//! once written in two crates and the same bug was fixed twice. So they live
//! here, once, with one set of tests, and stage 4's [`Connection`], stage 5
//! (through it) and stage 6's `FiberTcpStream` all call them.
//!
//! - **A short read drains the socket, unless the peer closed.** A `read`
//!   that returns fewer bytes than it asked for took everything the kernel
//!   had buffered, so the next `read` would only say `WouldBlock`: skip it
//!   and wait for the next readiness event instead (one system call saved
//!   per reply; tokio makes the same inference on epoll). The exception is
//!   a close that arrived together with the data: an edge-triggered
//!   selector reports that once, in the same event, and no event will ever
//!   come again for that socket. Stop after the short read then, and the
//!   end of the stream is never seen: the connection waits forever for a
//!   reply that is not coming. So when the event said "closed", read on
//!   until `read` returns 0.
//! - **`connect` returns at once; the handshake ends later.** The kernel
//!   reports the end as "writable", whether it worked or not. Only then
//!   does `SO_ERROR` ([`TcpStream::take_error`]) say whether it failed
//!   (a refused connection is an error there, not at `connect`), and even
//!   then readiness is only a hint: a socket with no error and no peer
//!   address is still connecting.
//!
//! Not here: the loop that waits for readiness (the [`Selector`]), nor what
//! the bytes mean ([`LineFramer`], [`crate::exchange`]).
//!
//! [`Connection`]: crate::connection::Connection
//! [`Selector`]: crate::Selector
//! [`LineFramer`]: testbed::framing::LineFramer

use std::io;

use mio::net::TcpStream;

// ANCHOR: drained
/// Whether a read that returned `read` bytes out of `asked` emptied the
/// socket's receive buffer, so that the caller should wait for the next
/// readiness event instead of reading again.
///
/// `peer_closed` is what the readiness event said about the peer: when it
/// closed, the caller must read on until `read` returns 0, because no
/// event will come for the end of the stream (see the module's docs).
/// A read of 0 bytes is the end of the stream, not "drained".
///
/// ```
/// use select::nonblocking::drained;
///
/// assert!(drained(100, 4096, false)); // short: the buffer is empty
/// assert!(!drained(4096, 4096, false)); // full: there may be more
/// assert!(!drained(100, 4096, true)); // the close came with the data
/// assert!(!drained(0, 4096, false)); // end of stream, not "drained"
/// ```
pub fn drained(read: usize, asked: usize, peer_closed: bool) -> bool {
    0 < read && read < asked && !peer_closed
}
// ANCHOR_END: drained

// ANCHOR: connect_finished
/// Checks whether a non-blocking `connect` has finished, after the socket
/// was reported writable: `Ok(true)` when connected (Nagle's algorithm is
/// then turned off: it would hold a small request line back for up to
/// 40 ms), `Ok(false)` when the handshake is still in progress (readiness
/// was only a hint), and the connect's own error when it failed
/// (`ConnectionRefused`, `TimedOut`...).
///
/// # Errors
///
/// The handshake failed, or the socket could not be asked.
pub fn connect_finished(stream: &TcpStream) -> io::Result<bool> {
    // A failed handshake leaves its error in SO_ERROR.
    if let Some(error) = stream.take_error()? {
        return Err(error);
    }
    // No error yet, but is it done? Only a connected socket has a peer.
    match stream.peer_addr() {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotConnected => return Ok(false),
        Err(e) => return Err(e),
    }
    stream.set_nodelay(true)?;
    Ok(true)
}
// ANCHOR_END: connect_finished

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::time::{Duration, Instant};

    use super::*;

    /// Polls `connect_finished` until it says something other than "still
    /// connecting", for at most a few seconds.
    fn finish(stream: &TcpStream) -> io::Result<bool> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match connect_finished(stream) {
                Ok(false) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                other => return other,
            }
        }
    }

    #[test]
    fn a_connect_to_a_listener_finishes_with_nodelay() -> io::Result<()> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let stream = TcpStream::connect(listener.local_addr()?)?;
        assert!(finish(&stream)?, "the handshake finishes");
        assert!(stream.nodelay()?, "Nagle is off once connected");
        Ok(())
    }

    #[test]
    fn a_refused_connect_is_the_connects_error() -> io::Result<()> {
        // A port that was just free: nothing listens there any more.
        let addr = TcpListener::bind("127.0.0.1:0")?.local_addr()?;
        let stream = TcpStream::connect(addr)?;
        let error = finish(&stream).expect_err("nobody listens");
        assert_eq!(error.kind(), io::ErrorKind::ConnectionRefused);
        Ok(())
    }

    #[test]
    fn a_short_read_with_a_close_is_not_drained() -> io::Result<()> {
        // Data and a close in one go: the short read took the data, and only
        // reading on finds the end of the stream that no event will report.
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let mut client = std::net::TcpStream::connect(listener.local_addr()?)?;
        let (mut server, _) = listener.accept()?;
        server.write_all(b"200 00000000000000ff\n")?;
        drop(server);
        let mut buf = [0u8; 4096];
        let n = client.read(&mut buf)?;
        assert!(n < buf.len());
        assert!(drained(n, buf.len(), false), "without the close: drained");
        assert!(!drained(n, buf.len(), true), "with it: read on");
        assert_eq!(client.read(&mut buf)?, 0, "and the next read is the end");
        Ok(())
    }
}
