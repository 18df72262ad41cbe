//! [`Script`]: a peer whose replies are written in advance, so request code
//! (`Conn<Script>`) meets every reply, right or wrong, and every split of
//! the bytes, without a socket or a clock.

use std::io::{self, Read, Write};

/// A fake peer for request code: reads come from a script written in
/// advance, writes are recorded. An empty script reads as a closed
/// connection (end of stream), which is what a server that drops the
/// connection looks like.
#[derive(Debug, Default)]
pub struct Script {
    replies: io::Cursor<Vec<u8>>,
    sent: Vec<u8>,
    /// Hand out one byte per read, the worst split a peer can produce.
    byte_by_byte: bool,
}

impl Script {
    /// A peer that will answer with these bytes, in order.
    pub fn new(replies: impl Into<Vec<u8>>) -> Script {
        Script {
            replies: io::Cursor::new(replies.into()),
            sent: Vec::new(),
            byte_by_byte: false,
        }
    }

    /// The same peer, but each read returns a single byte: a reader that
    /// assumes a line arrives in one read fails against it.
    pub fn byte_by_byte(mut self) -> Script {
        self.byte_by_byte = true;
        self
    }

    /// Everything written to the peer so far, as text.
    pub fn sent(&self) -> String {
        String::from_utf8_lossy(&self.sent).into_owned()
    }
}

impl Read for Script {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = if self.byte_by_byte {
            buf.len().min(1)
        } else {
            buf.len()
        };
        self.replies.read(&mut buf[..n])
    }
}

impl Write for Script {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.sent.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
