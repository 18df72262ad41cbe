//! Chapter 9, exercise 1: a buffer's life across a cancellation.
//!
//! A read on the ring has its buffer: the kernel may write into it until
//! the read's completion says it is done. To take the buffer back early
//! (the connection must go), ask the kernel to cancel the read, and then
//! wait for *the read's own completion*: the cancel request completes too,
//! but it owns nothing; only the read's completion hands the buffer back.
//! And that completion need not say "cancelled": if the bytes arrived
//! before the cancel did, the read finished, and its bytes are in the
//! buffer.
//!
//! Write [`take_back`]. Other operations may complete while you wait for
//! the read: keep their completions for their owners, in `others`.
//! Others may also still be in the kernel when the read's completion
//! comes: they are none of `take_back`'s business.
//!
//! What you need from `uring::ring`: `Ring::cancel` queues a cancel
//! request for an operation, `Ring::submit_and_wait` hands the kernel what
//! is queued and sleeps until something completes, and `Ring::reap`
//! collects the completions that came. A `Completion` carries its `id`,
//! its `op` (`Op::Recv(buf)` is a read's buffer, back in your hands) and
//! its `result`; `Completion::cancelled()` tells whether that result is
//! `ECANCELED`, the error of an operation a cancel stopped.
//!
//! A read on a connection whose peer says nothing, taken back: the same
//! buffer, untouched, and no bytes:
//!
//! ```
//! use std::net::{TcpListener, TcpStream};
//! use ch09_take_back::take_back;
//! use uring::ring::{Ring, SharedFd};
//!
//! let listener = TcpListener::bind("127.0.0.1:0")?;
//! let client = TcpStream::connect(listener.local_addr()?)?;
//! let _peer = listener.accept()?;
//! let mut ring = Ring::new(8)?;
//! let read = ring.recv(0, &SharedFd::new(client), vec![7; 64], None)?;
//! ring.submit()?;
//! let back = take_back(&mut ring, read, &mut Vec::new())?;
//! assert_eq!((back.buf, back.read), (vec![7; 64], None), "the same buffer, untouched, and no bytes");
//! # Ok::<(), std::io::Error>(())
//! ```

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch09-take-back");

use std::io;

use uring::ring::{Completion, Op, OpId, Ring};

/// What a read left when it was taken back.
#[derive(Debug)]
pub struct TakenBack {
    /// The buffer the read was given, back from the kernel.
    pub buf: Vec<u8>,
    /// The bytes it read before the cancel could stop it; `None` when the
    /// cancel stopped it first.
    pub read: Option<usize>,
}

// ANCHOR: exercise
/// Cancels `read`, a receive in flight on `ring`, waits for its
/// completion and returns its buffer (and its bytes, if it finished
/// first). Completions of other operations that arrive meanwhile go to
/// `others`, in order.
pub fn take_back(
    ring: &mut Ring,
    read: OpId,
    others: &mut Vec<Completion>,
) -> io::Result<TakenBack> {
    // EXERCISE-BEGIN: which completion brings the buffer back, and what else can it say but ECANCELED?
    ring.cancel(read)?;
    let mut arrived = Vec::new();
    loop {
        ring.submit_and_wait()?;
        ring.reap(&mut arrived);
        let mut mine = None;
        for completion in arrived.drain(..) {
            if completion.id == read {
                mine = Some(completion);
            } else {
                others.push(completion);
            }
        }
        let Some(completion) = mine else {
            continue; // Not yet: the read still holds the buffer.
        };
        let cancelled = completion.cancelled();
        let Op::Recv(buf) = completion.op else {
            return Err(io::Error::other("take_back is for reads"));
        };
        return match completion.result {
            Ok(n) => Ok(TakenBack { buf, read: Some(n) }),
            Err(_) if cancelled => Ok(TakenBack { buf, read: None }),
            Err(e) => Err(e),
        };
    }
    // EXERCISE-END
}
// ANCHOR_END: exercise

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::time::Duration;
    use uring::ring::SharedFd;

    use super::*;

    /// A connected pair on loopback: the client's end, and the peer's.
    fn pair() -> io::Result<(TcpStream, TcpStream)> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let client = TcpStream::connect(listener.local_addr()?)?;
        let (peer, _) = listener.accept()?;
        Ok((client, peer))
    }

    /// Runs `test` on a thread, failing it if it has not finished in 2 s
    /// (a `take_back` that waits for the wrong completion waits forever).
    fn bounded(test: impl FnOnce() -> io::Result<()> + Send + 'static) {
        testbed::testing::within_or(
            Duration::from_secs(2),
            "take_back never returned (the read's own completion, which it waits for, came \
             long ago: does it wait for something else?)",
            move || test().expect("the test's I/O"),
        );
    }

    #[test]
    fn a_silent_peer_gives_back_the_same_buffer_untouched() {
        bounded(|| {
            let (client, _peer) = pair()?;
            let mut ring = Ring::new(8)?;
            let read = ring.recv(0, &SharedFd::new(client), vec![7; 64], None)?;
            ring.submit()?;
            let back = take_back(&mut ring, read, &mut Vec::new())?;
            assert_eq!(
                back.buf,
                vec![7; 64],
                "the buffer that was lent comes back, untouched, not a new one"
            );
            assert_eq!(
                back.read, None,
                "the peer said nothing, so the cancel stopped the read"
            );
            assert_eq!(ring.in_flight(), 0, "nothing left in the kernel");
            Ok(())
        });
    }

    #[test]
    fn a_cancel_that_comes_too_late_keeps_the_bytes() {
        bounded(|| {
            let (client, mut peer) = pair()?;
            peer.write_all(b"OK\n")?;
            client.peek(&mut [0; 3])?; // The bytes are there.
            let mut ring = Ring::new(8)?;
            // Not submitted yet: the read and the cancel go in together,
            // and the read, first, finds its bytes at once.
            let read = ring.recv(0, &SharedFd::new(client), vec![0; 64], None)?;
            let back = take_back(&mut ring, read, &mut Vec::new())?;
            assert_eq!(back.read, Some(3), "a read that finished is not cancelled");
            assert_eq!(
                &back.buf[..3],
                b"OK\n",
                "the read's bytes are in the buffer it was lent"
            );
            Ok(())
        });
    }

    #[test]
    fn a_read_that_failed_is_an_error_not_a_cancel() {
        bounded(|| {
            // A file is no socket: the read fails at once with ENOTSOCK,
            // before the cancel can stop it.
            let not_a_socket = std::fs::File::open("/dev/null")?;
            let mut ring = Ring::new(8)?;
            let read = ring.recv(0, &SharedFd::new(not_a_socket), vec![0; 64], None)?;
            let taken = take_back(&mut ring, read, &mut Vec::new());
            assert!(
                taken.is_err(),
                "a read that failed on its own is an error that says why, not a cancelled read: only ECANCELED means the cancel stopped it"
            );
            Ok(())
        });
    }

    #[test]
    fn other_completions_are_kept_for_their_owners() {
        bounded(|| {
            let (client, _peer) = pair()?;
            let (other, mut other_peer) = pair()?;
            other_peer.write_all(b"200 x\n")?;
            other.peek(&mut [0; 6])?;
            let mut ring = Ring::new(8)?;
            // Lane 1's read completes at once; lane 0's is taken back.
            let theirs = ring.recv(1, &SharedFd::new(other), vec![1; 64], None)?;
            let mine = ring.recv(0, &SharedFd::new(client), vec![0; 64], None)?;
            let mut others = Vec::new();
            let back = take_back(&mut ring, mine, &mut others)?;
            assert_eq!(
                back.read, None,
                "lane 0's peer said nothing: lane 1's bytes are not lane 0's"
            );
            assert_eq!(
                back.buf,
                vec![0; 64],
                "lane 0 gets its own buffer back, not lane 1's"
            );
            assert_eq!(others.len(), 1, "lane 1's completion is not lost");
            assert_eq!(
                (others[0].id, others[0].owner),
                (theirs, 1),
                "the completion kept is lane 1's read"
            );
            assert_eq!(
                others[0].result.as_ref().ok(),
                Some(&6),
                "lane 1's read is kept with its six bytes"
            );
            Ok(())
        });
    }

    #[test]
    fn another_lanes_read_still_in_the_kernel_is_left_there() {
        bounded(|| {
            let (client, _peer) = pair()?;
            let (other, _other_peer) = pair()?;
            let mut ring = Ring::new(8)?;
            // Lane 1's peer says nothing: its read stays in the kernel
            // for as long as the test lasts.
            ring.recv(1, &SharedFd::new(other), vec![1; 64], None)?;
            let mine = ring.recv(0, &SharedFd::new(client), vec![0; 64], None)?;
            ring.submit()?;
            let mut others = Vec::new();
            let back = take_back(&mut ring, mine, &mut others)?;
            assert_eq!(
                (back.buf, back.read),
                (vec![0; 64], None),
                "lane 0's buffer comes back untouched"
            );
            assert!(
                others.is_empty(),
                "lane 1's read has not completed: there is nothing to keep for it"
            );
            assert_eq!(
                ring.in_flight(),
                1,
                "lane 1's read is still in the kernel, not cancelled with lane 0's"
            );
            Ok(())
        });
    }

    #[test]
    fn two_other_completions_keep_their_order() {
        bounded(|| {
            let (client, _peer) = pair()?;
            let mut ring = Ring::new(8)?;
            let mut theirs = Vec::new();
            let mut peers = Vec::new();
            for lane in 1..=2 {
                let (other, mut other_peer) = pair()?;
                other_peer.write_all(b"200 x\n")?;
                other.peek(&mut [0; 6])?;
                theirs.push(ring.recv(lane, &SharedFd::new(other), vec![0; 64], None)?);
                peers.push(other_peer);
            }
            let mine = ring.recv(0, &SharedFd::new(client), vec![0; 64], None)?;
            let mut others = Vec::new();
            let back = take_back(&mut ring, mine, &mut others)?;
            assert_eq!(back.read, None, "lane 0's peer said nothing");
            let kept: Vec<_> = others.iter().map(|c| (c.id, c.owner)).collect();
            assert_eq!(
                kept,
                [(theirs[0], 1), (theirs[1], 2)],
                "both other completions are kept, in the order they came"
            );
            Ok(())
        });
    }

    #[test]
    fn a_completion_after_the_reads_in_the_same_batch_is_kept() {
        bounded(|| {
            let (client, mut peer) = pair()?;
            let (other, mut other_peer) = pair()?;
            for (stream, end) in [(&client, &mut peer), (&other, &mut other_peer)] {
                end.write_all(b"OK\n")?;
                stream.peek(&mut [0; 3])?;
            }
            let mut ring = Ring::new(8)?;
            // Queued in this order and submitted together with the
            // cancel: lane 0's read completes first, lane 1's right after
            // it, in the same batch.
            let mine = ring.recv(0, &SharedFd::new(client), vec![0; 64], None)?;
            let theirs = ring.recv(1, &SharedFd::new(other), vec![0; 64], None)?;
            let mut others = Vec::new();
            let back = take_back(&mut ring, mine, &mut others)?;
            assert_eq!(back.read, Some(3), "lane 0's read finished with its bytes");
            let kept: Vec<_> = others.iter().map(|c| c.id).collect();
            assert_eq!(
                kept,
                [theirs],
                "lane 1's completion, which came in the same batch after lane 0's, is kept"
            );
            Ok(())
        });
    }

    #[test]
    fn a_reads_completion_that_comes_a_turn_later_is_waited_for() {
        bounded(|| {
            let (client, _peer) = pair()?;
            // Room for 8 completions, and 8 other reads that complete at
            // once and wait, unreaped: the cancelled read's completion
            // finds the queue full, the kernel keeps it, and it comes only
            // with the next wait, a turn later.
            let mut ring = uring::ring::RingOptions::new(8).completions(8).build()?;
            let mine = ring.recv(0, &SharedFd::new(client), vec![0; 64], None)?;
            ring.submit()?;
            let mut peers = Vec::new();
            for lane in 1..=8 {
                let (other, mut other_peer) = pair()?;
                other_peer.write_all(b"OK\n")?;
                other.peek(&mut [0; 3])?;
                ring.recv(lane, &SharedFd::new(other), vec![0; 64], None)?;
                peers.push(other_peer);
            }
            ring.submit()?;
            let mut others = Vec::new();
            let back = take_back(&mut ring, mine, &mut others)?;
            assert_eq!(
                (back.buf, back.read),
                (vec![0; 64], None),
                "the read's own completion, however many turns it takes, brings its buffer back"
            );
            assert_eq!(others.len(), 8, "the 8 other reads' completions are kept");
            Ok(())
        });
    }
}
