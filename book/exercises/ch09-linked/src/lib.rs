//! Chapter 9, exercise 2: a connect with a linked timeout, on the bare
//! ring.
//!
//! `08-uring` bounds each connect with a timeout *linked* to it: two
//! submission entries, the connect flagged `IO_LINK` and the
//! `LINK_TIMEOUT` right after it. Whichever finishes first cancels the
//! other, and both complete. Here you write that by hand with the
//! `io-uring` crate, for one connect: push the two entries, submit, wait
//! for both completions, and say what happened.
//!
//! The two completions, by case:
//!
//! | case | connect | timeout |
//! | --- | --- | --- |
//! | connected in time | `0` | `-ECANCELED` |
//! | refused | `-ECONNREFUSED` | `-ECANCELED` |
//! | no answer within the limit | `-ECANCELED` | `-ETIME` |
//!
//! A listening port answers at once; a closed one refuses:
//!
//! ```
//! use std::io::ErrorKind;
//! use std::net::TcpListener;
//! use std::time::Duration;
//! use ch09_linked::connect_within;
//!
//! let listener = TcpListener::bind("127.0.0.1:0")?;
//! let addr = listener.local_addr()?;
//! let stream = connect_within(addr, Duration::from_secs(5));
//! let peer = stream.and_then(|s| s.peer_addr()).map_err(|e| e.kind());
//! assert_eq!(peer, Ok(addr), "connected to the listener");
//! drop(listener);
//! let refused = connect_within(addr, Duration::from_secs(5)).map(|_| ());
//! assert_eq!(refused.map_err(|e| e.kind()), Err(ErrorKind::ConnectionRefused), "a closed port refuses");
//! # Ok::<(), std::io::Error>(())
//! ```

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch09-linked");

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::time::Duration;

use io_uring::{IoUring, opcode, squeue, types};
use socket2::{Domain, SockAddr, Socket, Type};

/// The `user_data` of the connect's entry.
pub const CONNECT: u64 = 1;
/// The `user_data` of the timeout's entry.
pub const TIMEOUT: u64 = 2;

/// Connects to `addr`, giving up after `limit`: a refused connect is
/// `ConnectionRefused`, no answer in time is `TimedOut`.
pub fn connect_within(addr: SocketAddr, limit: Duration) -> io::Result<TcpStream> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    let address = SockAddr::from(addr);
    let spec = types::Timespec::from(limit);
    let mut ring = IoUring::new(4)?;
    let connect = opcode::Connect::new(
        types::Fd(socket.as_raw_fd()),
        address.as_ptr().cast::<libc::sockaddr>(),
        address.len(),
    )
    .build()
    .user_data(CONNECT);
    let timeout = opcode::LinkTimeout::new(&spec).build().user_data(TIMEOUT);
    let result = exchange(&mut ring, connect, timeout)?;
    match result {
        0 => Ok(socket.into()),
        e if e == -libc::ECANCELED => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no handshake within {limit:?}"),
        )),
        e => Err(io::Error::from_raw_os_error(-e)),
    }
}

// ANCHOR: exercise
/// Submits `connect` linked to `timeout` (both already built, with their
/// `user_data` set to [`CONNECT`] and [`TIMEOUT`]), waits for both
/// completions, and returns the connect's result as the kernel gives it
/// (`0`, or a negated errno).
///
/// The memory both entries point to (`connect`'s address, `timeout`'s
/// `timespec`) belongs to the caller, which keeps it until this returns.
pub fn exchange(
    ring: &mut IoUring,
    connect: squeue::Entry,
    timeout: squeue::Entry,
) -> io::Result<i32> {
    // EXERCISE-BEGIN: which of the two entries carries IO_LINK, and how many completions must you wait for before the memory can go?
    let entries = [connect.flags(squeue::Flags::IO_LINK), timeout];
    // SAFETY: the address and the timespec the entries point to are the
    // caller's, alive until this function returns, and it returns only
    // after both entries have completed: the kernel is done with them.
    unsafe { ring.submission().push_multiple(&entries) }
        .map_err(|_| io::Error::other("a fresh ring has room for two entries"))?;
    let mut result = None;
    let mut completed = 0;
    while completed < 2 {
        ring.submit_and_wait(2 - completed)?;
        for cqe in ring.completion() {
            completed += 1;
            if cqe.user_data() == CONNECT {
                result = Some(cqe.result());
            }
        }
    }
    result.ok_or_else(|| io::Error::other("the connect did not complete"))
    // EXERCISE-END
}
// ANCHOR_END: exercise

#[cfg(test)]
mod tests {
    use std::net::TcpListener;
    use std::time::Instant;

    use testbed::testing::{SynDropper, within};

    use super::*;

    /// Long enough for every case here; a connect that waits for the
    /// kernel's own limit instead takes two minutes.
    const DEADLINE: Duration = Duration::from_secs(10);

    #[test]
    fn a_listener_answers_at_once_not_at_the_limit() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let addr = listener.local_addr().expect("an address");
        let start = Instant::now();
        let stream = within(DEADLINE, move || {
            connect_within(addr, Duration::from_secs(5))
        });
        let stream = stream.expect("connected");
        assert_eq!(
            stream.peer_addr().ok(),
            Some(addr),
            "the stream is connected to the listener"
        );
        // A timeout that is not linked to the connect waits for its limit
        // even after the connect succeeded.
        let took = start.elapsed();
        assert!(
            took < Duration::from_secs(2),
            "a connect that succeeds at once returns at once, not at the limit: took {took:?}"
        );
    }

    #[test]
    fn a_closed_port_is_refused() {
        let addr = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a port that was free");
        let result = within(DEADLINE, move || {
            connect_within(addr, Duration::from_secs(5))
        });
        let error = result.expect_err("nothing listens");
        assert_eq!(
            error.kind(),
            io::ErrorKind::ConnectionRefused,
            "a closed port refuses the connect, but got: {error}"
        );
    }

    #[test]
    fn a_server_that_drops_syns_times_out_at_the_limit() {
        let dropper = SynDropper::new();
        let addr = dropper.addr();
        let start = Instant::now();
        let result = within(DEADLINE, move || {
            connect_within(addr, Duration::from_millis(200))
        });
        let error = result.expect_err("no handshake can complete");
        assert_eq!(
            error.kind(),
            io::ErrorKind::TimedOut,
            "no answer within the limit is a timeout, but got: {error}"
        );
        let took = start.elapsed();
        assert!(
            took >= Duration::from_millis(200),
            "gave up after {took:?}, before the 200 ms limit"
        );
        drop(dropper);
    }

    #[test]
    fn exchange_returns_only_after_both_completions() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let addr = listener.local_addr().expect("an address");
        let (result, unread) = within(DEADLINE, move || -> io::Result<(i32, usize)> {
            let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
            let address = SockAddr::from(addr);
            let spec = types::Timespec::from(Duration::from_secs(5));
            let mut ring = IoUring::new(4)?;
            let connect = opcode::Connect::new(
                types::Fd(socket.as_raw_fd()),
                address.as_ptr().cast::<libc::sockaddr>(),
                address.len(),
            )
            .build()
            .user_data(CONNECT);
            let timeout = opcode::LinkTimeout::new(&spec).build().user_data(TIMEOUT);
            let result = exchange(&mut ring, connect, timeout)?;
            // One more call into the kernel, so that it posts any
            // completion it still owes for the two entries.
            ring.submit()?;
            Ok((result, ring.completion().len()))
        })
        .expect("the ring's system calls");
        assert_eq!(result, 0, "a connect to a listener succeeds");
        assert_eq!(
            unread, 0,
            "exchange returned before reading both completions: until the timeout's \
             has come, the kernel may still use the timespec its caller is about to drop"
        );
    }

    #[test]
    fn a_connect_waiting_for_its_limit_sleeps() {
        let dropper = SynDropper::new();
        let addr = dropper.addr();
        let result = testbed::testing::assert_quiet_within(
            Duration::from_secs(2),
            "a connect limited to 200 ms never ended: its timeout's completion never came",
            "a connect waiting 200 ms for its limit",
            move || connect_within(addr, Duration::from_millis(200)).map(|_| ()),
        );
        assert_eq!(
            result.map_err(|e| e.kind()),
            Err(io::ErrorKind::TimedOut),
            "no answer within the limit is a timeout"
        );
        drop(dropper);
    }
}
