//! Turning a byte stream into lines: the one framer every stage uses.
//!
//! TCP delivers bytes, not messages. One `read()` may return half a line, or
//! three lines and the start of a fourth; a reader that assumes "one read,
//! one line" works on loopback with small messages and breaks the day a reply
//! is split across two segments (stage 4's chapter shows exactly that bug).
//! [`LineFramer`] keeps whatever has arrived and hands out only *complete*
//! lines, enforcing SLOW/1's framing rules (the book's protocol appendix)
//! as the bytes come in:
//!
//! - a line, `\n` included, is at most [`MAX_LINE`] bytes, so a peer that
//!   never sends `\n` cannot make us buffer without bound;
//! - only printable ASCII (`0x20..=0x7E`) inside a line, and `\r` only right
//!   before `\n` (where it is stripped).
//!
//! The framer itself does no I/O, which is why it serves both worlds:
//! blocking code calls [`LineFramer::read_line`], an event loop calls
//! [`LineFramer::read_from`] when its selector says "readable" and then pops
//! lines with [`LineFramer::next_line`] until it gets `Ok(None)`.
//!
//! Not here: what a line *means* ([`crate::protocol`]).

use std::io::{self, Read};

use thiserror::Error;

pub use crate::protocol::MAX_LINE;

/// How many bytes one [`LineFramer::read_from`] asks the OS for. A few lines'
/// worth; a bigger buffer would only hold more unread lines.
pub const READ_CHUNK: usize = 4096;

/// Why the byte stream broke the framing rules. Once a framer has reported
/// one, the stream is out of sync for good: the only remedy is to close.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum FrameError {
    /// More than [`MAX_LINE`] bytes without a `\n`.
    #[error("line longer than {MAX_LINE} bytes")]
    TooLong,
    /// A byte outside printable ASCII, or a `\r` not followed by `\n`.
    #[error("non-printable byte 0x{0:02x} in a line")]
    NotPrintable(u8),
}

/// Why [`LineFramer::read_line`] could not return a line.
#[derive(Debug, Error)]
pub enum LineError {
    /// The socket failed (or timed out, if it has a read timeout).
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The peer broke the framing rules.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The peer closed the connection in the middle of a line.
    #[error("connection closed in the middle of a line")]
    EofMidLine,
}

/// Bytes in, complete lines out.
///
/// # Example
///
/// Bytes arrive in pieces that ignore line boundaries; lines come out
/// whole, and a half line waits for the rest:
///
/// ```
/// use testbed::framing::LineFramer;
///
/// let mut framer = LineFramer::new();
/// framer.push(b"OK\r\n200 00000000");
/// assert_eq!(framer.next_line(), Ok(Some("OK".to_string())));
/// assert_eq!(framer.next_line(), Ok(None)); // half a line: wait for more
/// assert!(framer.has_partial());
/// framer.push(b"000000ff\n");
/// assert_eq!(
///     framer.next_line(),
///     Ok(Some("200 00000000000000ff".to_string()))
/// );
///
/// // From a socket (any `Read`; a byte slice here): one read, then the
/// // lines it completed.
/// let mut socket: &[u8] = b"NAK busy\n";
/// assert_eq!(framer.read_from(&mut socket)?, 9);
/// assert_eq!(framer.next_line(), Ok(Some("NAK busy".to_string())));
/// // A byte that breaks the framing rules ends the stream for good.
/// framer.push(b"200 \x01\n");
/// assert!(framer.next_line().is_err());
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Memory
///
/// The framer holds the complete lines not yet taken plus at most one partial
/// line of fewer than [`MAX_LINE`] bytes ([`buffered`](Self::buffered)).
/// Callers that pop every line before they read again (as
/// [`read_line`](Self::read_line) does; an event loop reads only while
/// [`has_next`](Self::has_next) is false) therefore never hold more than
/// one read chunk plus one line. A caller that reads until `WouldBlock`
/// before taking lines holds whatever the peer managed to send meanwhile:
/// without bound, if the peer keeps the socket full.
///
/// Besides the bytes it holds, a framer that has read from a source keeps
/// one [`READ_CHUNK`]-byte buffer for [`read_from`](Self::read_from): 4 KiB
/// of heap per connection, instead of 4 KiB zeroed on the stack for every
/// read.
///
/// # Errors are sticky
///
/// Lines completed *before* a framing error are still handed out, in order;
/// then [`next_line`](Self::next_line) returns the error, and keeps returning
/// it. Bytes after the error are dropped on arrival.
#[derive(Debug, Default)]
pub struct LineFramer {
    /// Received bytes; `buf[start..]` is not yet handed out.
    buf: Vec<u8>,
    start: usize,
    /// Bytes of the current, incomplete line seen so far (its `\r` included).
    partial_len: usize,
    /// The previous byte was a `\r`, so the next must be `\n`.
    after_cr: bool,
    /// The first rule broken, reported once the lines before it are taken.
    error: Option<FrameError>,
    /// [`read_from`](Self::read_from)'s buffer: empty until the first
    /// read, then [`READ_CHUNK`] zeroed bytes, reused for every read.
    chunk: Vec<u8>,
}

impl LineFramer {
    /// An empty framer.
    pub fn new() -> LineFramer {
        LineFramer::default()
    }

    // ANCHOR: framer
    /// Appends bytes that arrived, checking the framing rules as it goes.
    pub fn push(&mut self, data: &[u8]) {
        if self.error.is_some() {
            return;
        }
        self.compact();
        for (i, &byte) in data.iter().enumerate() {
            if let Err(error) = self.check(byte) {
                // Keep only the complete lines before the bad one.
                let partial = self.partial_len;
                self.buf.extend_from_slice(&data[..i]);
                self.buf.truncate(self.buf.len() - partial);
                self.error = Some(error);
                return;
            }
        }
        self.buf.extend_from_slice(data);
    }

    /// The next complete line, without its `\n` or `\r\n`; `Ok(None)` when
    /// more bytes are needed.
    pub fn next_line(&mut self) -> Result<Option<String>, FrameError> {
        let pending = &self.buf[self.start..];
        let Some(newline) = pending.iter().position(|&b| b == b'\n') else {
            return match self.error {
                Some(error) => Err(error),
                None => Ok(None),
            };
        };
        let mut line = &pending[..newline];
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        // Every byte passed `check`, so the line is printable ASCII, which is
        // always valid UTF-8: `from_utf8_lossy` never substitutes anything.
        let text = String::from_utf8_lossy(line).into_owned();
        self.start += newline + 1;
        Ok(Some(text))
    }
    // ANCHOR_END: framer

    /// True when part of a line has arrived but not its end: a close now
    /// would cut a message in half.
    pub fn has_partial(&self) -> bool {
        self.partial_len > 0
    }

    /// True when [`next_line`](Self::next_line) has something to give: a
    /// complete line, or the framing error. A reader that stops reading
    /// while this holds, and takes the line first, keeps the framer's
    /// memory at one read plus one line however fast the peer sends.
    pub fn has_next(&self) -> bool {
        self.error.is_some() || self.buf[self.start..].contains(&b'\n')
    }

    /// Bytes held: the complete lines not yet taken, plus the partial
    /// line (see `# Memory` on the type).
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Reads once from `src` (at most [`READ_CHUNK`] bytes) and pushes what
    /// came. Returns the byte count, `0` meaning end of stream.
    ///
    /// This is the non-blocking entry point: on a non-blocking socket it
    /// returns `WouldBlock` when nothing is there, which is not an error but
    /// "go back to the selector".
    pub fn read_from(&mut self, src: &mut impl Read) -> io::Result<usize> {
        // `read` wants initialised bytes, so a fresh `[0u8; READ_CHUNK]` here
        // would zero 4 KiB for every read: two 4 KiB `memset`s per item, a
        // fifth of a hand-built client's user-space instructions (callgrind,
        // the race's zero-latency workload). Zeroed once, then reused.
        let mut chunk = std::mem::take(&mut self.chunk);
        chunk.resize(READ_CHUNK, 0);
        let result = src.read(&mut chunk);
        if let Ok(n) = result {
            self.push(&chunk[..n]);
        }
        self.chunk = chunk;
        result
    }

    /// Blocks until a whole line has arrived on `src`; `Ok(None)` when the
    /// peer closed the connection cleanly between lines.
    pub fn read_line(&mut self, src: &mut impl Read) -> Result<Option<String>, LineError> {
        loop {
            if let Some(line) = self.next_line()? {
                return Ok(Some(line));
            }
            match self.read_from(src) {
                Ok(0) if self.has_partial() => return Err(LineError::EofMidLine),
                Ok(0) => return Ok(None),
                Ok(_) => {}
                // A signal arrived mid-read: nothing was lost, just ask again.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Applies the framing rules to one incoming byte.
    fn check(&mut self, byte: u8) -> Result<(), FrameError> {
        match byte {
            b'\n' => {
                self.partial_len = 0;
                self.after_cr = false;
                return Ok(());
            }
            _ if self.after_cr => return Err(FrameError::NotPrintable(b'\r')),
            b'\r' | 0x20..=0x7e => {}
            other => return Err(FrameError::NotPrintable(other)),
        }
        // This byte and the `\n` still to come must both fit.
        if self.partial_len + 2 > MAX_LINE {
            return Err(FrameError::TooLong);
        }
        self.after_cr = byte == b'\r';
        self.partial_len += 1;
        Ok(())
    }

    /// Drops the lines already handed out, so the buffer does not grow with
    /// the length of the conversation.
    fn compact(&mut self) {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn drain(framer: &mut LineFramer) -> (Vec<String>, Option<FrameError>) {
        let mut lines = Vec::new();
        loop {
            match framer.next_line() {
                Ok(Some(line)) => lines.push(line),
                Ok(None) => return (lines, None),
                Err(e) => return (lines, Some(e)),
            }
        }
    }

    #[test]
    fn splits_lines_and_strips_cr() {
        let mut framer = LineFramer::new();
        framer.push(b"OK\r\n200 00000000000000");
        assert_eq!(drain(&mut framer), (vec!["OK".to_string()], None));
        assert!(framer.has_partial());
        framer.push(b"2a\nNAK no\n");
        let (lines, error) = drain(&mut framer);
        assert_eq!(lines, ["200 000000000000002a", "NAK no"]);
        assert_eq!(error, None);
        assert!(!framer.has_partial());
    }

    #[test]
    fn has_next_says_whether_next_line_has_something_to_give() {
        let mut framer = LineFramer::new();
        framer.push(b"OK\n20");
        assert!(framer.has_next());
        assert_eq!(framer.buffered(), 5);
        assert_eq!(framer.next_line(), Ok(Some("OK".into())));
        assert!(!framer.has_next(), "only a partial line is left");
        assert_eq!(framer.buffered(), 2);
        framer.push(b"\x01");
        assert!(framer.has_next(), "the framing error is something to give");
    }

    #[test]
    fn a_line_of_exactly_max_line_bytes_is_accepted() {
        let mut framer = LineFramer::new();
        let body = "x".repeat(MAX_LINE - 1);
        framer.push(format!("{body}\n").as_bytes());
        assert_eq!(framer.next_line(), Ok(Some(body)));
    }

    #[test]
    fn one_byte_more_is_too_long() {
        let mut framer = LineFramer::new();
        framer.push(b"first\n");
        framer.push("x".repeat(MAX_LINE).as_bytes());
        assert_eq!(
            drain(&mut framer),
            (vec!["first".to_string()], Some(FrameError::TooLong))
        );
        // Sticky: still an error, and later bytes are not kept.
        framer.push(b"more\n");
        assert_eq!(framer.next_line(), Err(FrameError::TooLong));
    }

    #[test]
    fn lone_cr_and_control_bytes_are_not_printable() {
        for (input, bad) in [(&b"a\rb\n"[..], b'\r'), (b"a\x00\n", 0), (b"\xff\n", 0xff)] {
            let mut framer = LineFramer::new();
            framer.push(input);
            assert_eq!(framer.next_line(), Err(FrameError::NotPrintable(bad)));
        }
    }

    #[test]
    fn cr_split_from_its_lf_across_pushes() {
        let mut framer = LineFramer::new();
        framer.push(b"OK\r");
        assert_eq!(framer.next_line(), Ok(None));
        framer.push(b"\n");
        assert_eq!(framer.next_line(), Ok(Some("OK".into())));
    }

    #[test]
    fn read_line_reports_eof_mid_line() {
        let mut framer = LineFramer::new();
        let mut src: &[u8] = b"OK\n20";
        assert_eq!(
            framer.read_line(&mut src).ok().flatten().as_deref(),
            Some("OK")
        );
        assert!(matches!(
            framer.read_line(&mut src),
            Err(LineError::EofMidLine)
        ));
        let mut empty: &[u8] = b"";
        let mut framer = LineFramer::new();
        assert!(matches!(framer.read_line(&mut empty), Ok(None)));
    }

    fn valid_line() -> impl Strategy<Value = String> {
        // At most 1022 characters: the `\r` of a `\r\n` ending counts
        // towards MAX_LINE too, so 1023 would be one byte too long with it.
        proptest::string::string_regex("[ -~]{0,1022}").expect("valid regex")
    }

    proptest! {
        #[test]
        fn any_split_yields_the_same_lines(
            lines in proptest::collection::vec(valid_line(), 0..20),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..30),
            crlf in any::<bool>(),
        ) {
            let end = if crlf { "\r\n" } else { "\n" };
            let stream: String = lines.iter().map(|l| format!("{l}{end}")).collect();
            let bytes = stream.as_bytes();
            let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
            points.extend([0, bytes.len()]);
            points.sort_unstable();

            let mut framer = LineFramer::new();
            let mut got = Vec::new();
            for pair in points.windows(2) {
                framer.push(&bytes[pair[0]..pair[1]]);
                let (mut some, error) = drain(&mut framer);
                prop_assert_eq!(error, None);
                got.append(&mut some);
            }
            prop_assert_eq!(got, lines);
            prop_assert!(!framer.has_partial());
        }

        #[test]
        fn arbitrary_bytes_never_panic_or_overbuffer(
            chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..3000), 0..10),
        ) {
            let mut framer = LineFramer::new();
            for chunk in chunks {
                framer.push(&chunk);
                let (lines, _) = drain(&mut framer);
                for line in lines {
                    prop_assert!(line.len() < MAX_LINE);
                    prop_assert!(line.bytes().all(|b| (0x20..=0x7e).contains(&b)));
                }
                // All complete lines taken: only a partial line may remain.
                prop_assert!(framer.buf.len() - framer.start < MAX_LINE);
            }
        }
    }
}
