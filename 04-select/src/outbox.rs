//! Bytes waiting to be sent: what makes a non-blocking write safe.
//!
//! On a non-blocking socket, `write` takes what fits in the kernel's send
//! buffer and returns how much that was; when the buffer is full it returns
//! `WouldBlock` and takes nothing. A request line is small and the buffer
//! is big, so on loopback the whole line almost always fits, and code that
//! assumes it does works until the day the peer reads slowly. Then the tail
//! of a line is silently dropped, or, with a blocking socket, the whole
//! event loop stops inside `write` (the Portuguese article admits its
//! server "should" watch for write readiness and does not).
//!
//! [`Outbox`] keeps what the socket did not take, in order, and hands it to
//! the socket again when the selector says "writable". Its owner watches for
//! writability only while the outbox is not empty.
//!
//! Not here: the read side ([`testbed::framing::LineFramer`]).

use std::collections::VecDeque;
use std::io::{self, Write};

// ANCHOR: outbox
/// A FIFO of bytes not yet accepted by the socket.
#[derive(Debug, Default)]
pub struct Outbox {
    queued: VecDeque<u8>,
}

impl Outbox {
    /// An empty outbox.
    pub fn new() -> Outbox {
        Outbox::default()
    }

    /// Queues `bytes` after whatever is already waiting.
    pub fn push(&mut self, bytes: &[u8]) {
        self.queued.extend(bytes);
    }

    /// Writes as much as `sink` takes, until the outbox is empty or the
    /// sink says `WouldBlock` (what it did not take stays queued). Returns
    /// the bytes written. A `WouldBlock` is not an error here: it means
    /// "wait until writable"; every other error is.
    pub fn flush_to(&mut self, sink: &mut impl Write) -> io::Result<usize> {
        let mut written = 0;
        while !self.queued.is_empty() {
            let (front, _) = self.queued.as_slices();
            match sink.write(front) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    self.queued.drain(..n);
                    written += n;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(written)
    }
    // ANCHOR_END: outbox

    /// True when everything queued has been written.
    pub fn is_empty(&self) -> bool {
        self.queued.is_empty()
    }

    /// Bytes still waiting.
    pub fn len(&self) -> usize {
        self.queued.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that takes at most `room` bytes, then says `WouldBlock`.
    struct Tight {
        taken: Vec<u8>,
        room: usize,
    }

    impl Write for Tight {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            let n = buf.len().min(self.room).min(3);
            self.taken.extend_from_slice(&buf[..n]);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    proptest::proptest! {
        /// However the socket takes the bytes (a few at a time, nothing for
        /// a while), what arrives is exactly what was pushed, in order.
        #[test]
        fn bytes_leave_in_order_whatever_the_socket_takes(
            pushes in proptest::collection::vec(proptest::collection::vec(proptest::num::u8::ANY, 0..50), 0..20),
            rooms in proptest::collection::vec(0usize..40, 1..50),
        ) {
            let mut outbox = Outbox::new();
            let mut sink = Tight { taken: Vec::new(), room: 0 };
            let mut rooms = rooms.into_iter().cycle();
            for bytes in &pushes {
                outbox.push(bytes);
                sink.room = rooms.next().unwrap_or(0);
                outbox.flush_to(&mut sink).expect("WouldBlock is not an error");
            }
            while !outbox.is_empty() {
                sink.room = rooms.next().unwrap_or(0).max(1);
                outbox.flush_to(&mut sink).expect("WouldBlock is not an error");
            }
            proptest::prop_assert_eq!(sink.taken, pushes.concat());
        }
    }

    #[test]
    fn what_the_sink_refuses_stays_queued_in_order() {
        let mut outbox = Outbox::new();
        outbox.push(b"HEAD 1\n");
        outbox.push(b"HEAD 2\n");
        let mut sink = Tight {
            taken: Vec::new(),
            room: 5,
        };
        assert_eq!(outbox.flush_to(&mut sink).ok(), Some(5));
        assert_eq!(outbox.len(), 9);
        sink.room = 100;
        assert_eq!(outbox.flush_to(&mut sink).ok(), Some(9));
        assert!(outbox.is_empty());
        assert_eq!(sink.taken, b"HEAD 1\nHEAD 2\n");
    }
}
