//! Chapter 4, exercise 1: drain a readable socket.
//!
//! epoll, as mio uses it, is edge-triggered: it tells you *once* that bytes
//! arrived. A reader that takes one buffer's worth and goes back to waiting
//! leaves the rest in the socket, and no event will ever mention it again
//! (unless the peer sends more). The rule is to read until the socket says
//! `WouldBlock`, handing every byte to the framer, which keeps a partial
//! line for later.
//!
//! Write [`drain`]: read from a non-blocking `src` until `WouldBlock`,
//! pushing everything into `framer`; retry a read interrupted by a signal;
//! report how many bytes came and whether the peer closed (a read of 0).
//!
//! (Stage 4's `Connection` refines this: it stops at each complete line and
//! reads on once the line is taken, so that a peer that never stops sending
//! cannot fill its memory. Here the caller takes the lines after the drain,
//! which is fine for a peer that stops.)
//!
//! Any `Read` will do; a byte slice has five bytes, then its end:
//!
//! ```
//! use ch04_drain::{Drained, drain};
//! use testbed::framing::LineFramer;
//!
//! let mut framer = LineFramer::new();
//! let drained = drain(&mut &b"OK\n20"[..], &mut framer)?;
//! assert_eq!(drained, Drained { bytes: 5, eof: true }, "the 5 bytes, then the end of the stream");
//! assert_eq!(framer.next_line(), Ok(Some("OK".into())), "the complete line is in the framer");
//! assert!(framer.has_partial(), "'20' waits for the rest of its line");
//! # Ok::<(), std::io::Error>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch04-drain");

use std::io::{self, Read};

use testbed::framing::LineFramer;

/// What one [`drain`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drained {
    /// Bytes read and pushed into the framer.
    pub bytes: usize,
    /// The peer closed its side (a read returned 0).
    pub eof: bool,
}

// ANCHOR: exercise
/// Reads everything `src` has *now* into `framer`, without ever blocking
/// (`src` is non-blocking), and says what it found.
pub fn drain(src: &mut impl Read, framer: &mut LineFramer) -> io::Result<Drained> {
    // TODO: which results of a read mean 'more may come', 'nothing for now', 'try again' and 'never again'?
    todo!("which results of a read mean 'more may come', 'nothing for now', 'try again' and 'never again'?")
}
// ANCHOR_END: exercise

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::os::fd::AsFd;
    use std::time::Duration;
    use testbed::hints::Outcome;

    use select::event::{Interest, Token};
    use select::{Backend, Selector};

    /// 300 lines of 40 bytes: 12,000 bytes, three of the framer's 4 KiB reads.
    fn lines() -> Vec<String> {
        (0..300).map(|i| format!("200 {i:035}")).collect()
    }

    fn pair() -> io::Result<(TcpStream, TcpStream)> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let client = TcpStream::connect(listener.local_addr()?)?;
        let (server, _) = listener.accept()?;
        client.set_nonblocking(true)?;
        Ok((client, server))
    }

    #[test]
    fn one_edge_is_enough_when_the_socket_is_drained() -> Outcome {
        let (mut client, mut server) = pair()?;
        let mut selector = Selector::new(Backend::Epoll)?;
        selector.add(client.as_fd(), Token::new(0), Interest::Read)?;
        let text: String = lines().iter().map(|l| format!("{l}\n")).collect();
        server.write_all(text.as_bytes())?;

        // Wait for the edge, then drain, until every line is in.
        let mut framer = LineFramer::new();
        let mut got = Vec::new();
        let mut events = Vec::new();
        while got.len() < 300 {
            selector.wait(&mut events, Some(Duration::from_secs(5)))?;
            assert!(
                !events.is_empty(),
                "no edge came for 5 s, though lines are missing: a drain left bytes in the socket"
            );
            let drained = drain(&mut client, &mut framer)?;
            assert!(!drained.eof, "the peer is still open: no end of file");
            while let Some(line) = framer.next_line().expect("valid lines") {
                got.push(line);
            }
        }
        assert_eq!(got, lines(), "every line should arrive, whole and in order");
        // Drained: nothing left, and nothing new to report.
        selector.wait(&mut events, Some(Duration::from_millis(20)))?;
        assert!(
            events.is_empty(),
            "once drained, the socket should have nothing more to report"
        );
        Ok(())
    }

    #[test]
    fn a_closed_peer_is_the_end_of_the_stream() -> Outcome {
        let (mut client, mut server) = pair()?;
        server.write_all(b"OK\n20")?;
        drop(server);
        let mut framer = LineFramer::new();
        let mut total = Drained {
            bytes: 0,
            eof: false,
        };
        // The bytes and the close may arrive in separate reads.
        for _ in 0..1000 {
            let drained = drain(&mut client, &mut framer)?;
            total.bytes += drained.bytes;
            total.eof = drained.eof;
            if total.eof {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(
            total,
            Drained {
                bytes: 5,
                eof: true
            },
            "the 5 bytes, then a read of 0 reported as the end of the stream"
        );
        assert_eq!(
            framer.next_line(),
            Ok(Some("OK".into())),
            "the bytes read should be in the framer"
        );
        assert!(framer.has_partial(), "'20' waits for the rest of its line");
        Ok(())
    }

    /// A reader that is interrupted once, then has data, then would block.
    struct Jumpy {
        calls: usize,
    }

    impl Read for Jumpy {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.calls += 1;
            match self.calls {
                1 => Err(io::ErrorKind::Interrupted.into()),
                2 => {
                    buf[..3].copy_from_slice(b"OK\n");
                    Ok(3)
                }
                _ => Err(io::ErrorKind::WouldBlock.into()),
            }
        }
    }

    /// A reader whose connection is reset: its first read fails, and any
    /// read after that would block (so a drain that shrugs the error off
    /// returns at once instead of spinning).
    struct Reset {
        calls: usize,
    }

    impl Read for Reset {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            self.calls += 1;
            match self.calls {
                1 => Err(io::ErrorKind::ConnectionReset.into()),
                _ => Err(io::ErrorKind::WouldBlock.into()),
            }
        }
    }

    #[test]
    fn a_failed_read_is_an_error_not_more_to_come() {
        let result = drain(&mut Reset { calls: 0 }, &mut LineFramer::new());
        assert_eq!(
            result.map_err(|e| e.kind()),
            Err(io::ErrorKind::ConnectionReset),
            "a read that fails for good should end the drain with its error"
        );
    }

    #[test]
    fn a_signal_does_not_end_the_drain() {
        let mut framer = LineFramer::new();
        let drained = drain(&mut Jumpy { calls: 0 }, &mut framer).map_err(|e| e.kind());
        assert_eq!(
            drained,
            Ok(Drained {
                bytes: 3,
                eof: false
            }),
            "an interrupted read should be tried again, not end the drain (nor fail it)"
        );
        assert_eq!(
            framer.next_line(),
            Ok(Some("OK".into())),
            "the bytes read after the interruption should be in the framer"
        );
    }

    #[test]
    fn an_empty_socket_drains_at_once_and_the_loop_sleeps_until_bytes_come() -> Outcome {
        let (mut client, mut server) = pair()?;
        let mut selector = Selector::new(Backend::Epoll)?;
        selector.add(client.as_fd(), Token::new(0), Interest::Read)?;
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            server.write_all(b"OK\n")
        });
        // The wait belongs to the selector: a drain that waits for bytes
        // itself spins through the peer's 200 ms.
        let (nothing, line) = testbed::testing::assert_quiet_within(
            Duration::from_secs(2),
            "the peer's line, written after 200 ms, never came out of the drains",
            "waiting 200 ms for a peer's line",
            move || {
                let mut framer = LineFramer::new();
                let nothing = drain(&mut client, &mut framer).map_err(|e| e.kind());
                let mut events = Vec::new();
                for _ in 0..100 {
                    selector.wait(&mut events, Some(Duration::from_secs(2)))?;
                    drain(&mut client, &mut framer)?;
                    if let Some(line) = framer.next_line().expect("a valid line") {
                        return Ok((nothing, line));
                    }
                }
                Err(io::Error::other("no line after 100 wake-ups"))
            },
        )?;
        assert_eq!(
            nothing,
            Ok(Drained {
                bytes: 0,
                eof: false
            }),
            "a socket with nothing in it yet should drain at once: 0 bytes, not the end of the stream"
        );
        assert_eq!(
            line, "OK",
            "the peer's line, read after its readiness event"
        );
        writer.join().expect("the writer finishes")?;
        Ok(())
    }

    /// A reader that has `chunks` ready, one per read, then would block.
    struct Chunks(Vec<&'static [u8]>);

    impl Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            let chunk = self.0.remove(0);
            buf[..chunk.len()].copy_from_slice(chunk);
            Ok(chunk.len())
        }
    }

    #[test]
    fn every_byte_of_every_read_is_counted() {
        let mut framer = LineFramer::new();
        let drained = drain(&mut Chunks(vec![b"20", b"0 1\n3", b"00 2\n"]), &mut framer)
            .map_err(|e| e.kind());
        assert_eq!(
            drained,
            Ok(Drained {
                bytes: 12,
                eof: false
            }),
            "bytes counts every byte of every read (2 + 5 + 5), and WouldBlock is not the end"
        );
    }
}
