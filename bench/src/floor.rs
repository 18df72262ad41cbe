//! Reference `floor`: the least a client can do for the race's workload,
//! the line under every other row.
//!
//! The same requests on the same connections as every rung, from one epoll
//! loop (mio's `Poll`, epoll underneath, edge-triggered), and nothing else:
//! no line framer, no `Request` or `Reply` values, no strings per item.
//! Each connection has one fixed buffer for its reply; a reply is checked
//! by comparing its bytes with the line the server must send (`OK`, then
//! `200 <hash>`), computed in memory. What it still does, because the
//! workload asks it of every contender: one `INSERT` per item, the same
//! [`Store::record`](testbed::store::Store::record) the rungs call, so the
//! harness can verify the run like any other. Its CPU per item is then the system calls of the
//! conversation, loopback TCP and SQLite, and the race shows each row as a
//! multiple of it (the "× floor" column).
//!
//! # Simplifications
//!
//! It is a measuring stick, not a client to copy:
//!
//! - it connects with a blocking `connect` before the loop starts (50
//!   handshakes, outside the per-item work);
//! - a request line is a few dozen bytes and there is one in flight per
//!   connection, so the socket's send buffer always takes it whole: a
//!   short write is reported as a failure instead of being queued;
//! - any reply that is not the expected one, a close or an error ends the
//!   run with an error: the race's servers inject no faults.
//!
//! Not here: the rungs (each stage's crate), the other references
//! ([`crate::tasks`], [`crate::threads`]).

use std::io::{self, Read, Write};
use std::time::Instant;

use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};
use testbed::protocol::{Phases, ResultHash};
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::store::Lane;
use testbed::workload::Item;

/// Replies are `OK\n` or `200 ` and 16 hex digits and `\n` (21 bytes);
/// anything longer is wrong anyway.
const REPLY_BUFFER: usize = 64;

/// Events taken per `epoll_wait`: one per connection of the race.
const EVENTS: usize = 64;

/// The floor reference.
#[derive(Debug, Clone, Copy, Default)]
pub struct Floor;

/// Where one connection is in its item's conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Awaiting {
    /// `HEAD` sent, waiting for `OK`.
    Ack,
    /// `GET` or `BODY` sent, waiting for `200 <hash>`.
    Answer,
}

/// One connection and its item in flight.
struct Conn {
    stream: TcpStream,
    lane: Lane,
    item: usize,
    started: Instant,
    awaiting: Awaiting,
    reply: [u8; REPLY_BUFFER],
    len: usize,
}

impl Stage for Floor {
    fn name(&self) -> &'static str {
        "floor"
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let items = &scenario.items;
        let conns = scenario.conns.min(items.len()).max(1);
        let mut store = scenario.open_store()?;
        let mut poll = Poll::new()?;
        let mut lanes = Vec::with_capacity(conns);
        let mut next = 0;
        let mut line = Vec::with_capacity(REPLY_BUFFER);
        for index in 0..conns {
            let std = std::net::TcpStream::connect(scenario.server)?;
            std.set_nodelay(true)?;
            std.set_nonblocking(true)?;
            let mut stream = TcpStream::from_std(std);
            poll.registry()
                .register(&mut stream, Token(index), Interest::READABLE)?;
            let mut lane = Conn {
                stream,
                lane: Lane::of(index),
                item: next,
                started: Instant::now(),
                awaiting: Awaiting::Ack,
                reply: [0; REPLY_BUFFER],
                len: 0,
            };
            next += 1;
            lane.start(&items[lane.item], scenario.phases, &mut line)?;
            lanes.push(lane);
        }
        let mut done = 0;
        let mut events = Events::with_capacity(EVENTS);
        while done < items.len() {
            wait(&mut poll, &mut events)?;
            for event in &events {
                let conn = &mut lanes[event.token().0];
                // Edge-triggered, one reply due at a time: the read that
                // completes the line empties the socket, and the next reply
                // raises a new edge. So one reply per event, and no read
                // that would only say `WouldBlock`.
                let Some(end) = conn.read_reply()? else {
                    continue;
                };
                let item = &items[conn.item];
                match conn.awaiting {
                    Awaiting::Ack => {
                        check(&conn.reply[..end], b"OK")?;
                        conn.awaiting = Awaiting::Answer;
                        conn.send_body(item, &mut line)?;
                    }
                    Awaiting::Answer => {
                        let hash = item.expected_result();
                        check_answer(&conn.reply[..end], hash, &mut line)?;
                        store.record(item.id, conn.lane, conn.started, &Ok(hash))?;
                        done += 1;
                        if next < items.len() {
                            conn.item = next;
                            next += 1;
                            conn.start(&items[conn.item], scenario.phases, &mut line)?;
                        }
                    }
                }
            }
        }
        Ok(RunStats::new(conns))
    }
}

impl Conn {
    /// Sends the first line of the item: `HEAD` or `GET`.
    fn start(&mut self, item: &Item, phases: Phases, line: &mut Vec<u8>) -> io::Result<()> {
        self.started = Instant::now();
        line.clear();
        match phases {
            Phases::Two => {
                self.awaiting = Awaiting::Ack;
                writeln!(line, "HEAD {}", item.id)?;
            }
            Phases::One => {
                self.awaiting = Awaiting::Answer;
                writeln!(line, "GET {} {}", item.id, item.payload)?;
            }
        }
        self.send(line)
    }

    /// Sends `BODY` after the `OK`.
    fn send_body(&mut self, item: &Item, line: &mut Vec<u8>) -> io::Result<()> {
        line.clear();
        writeln!(line, "BODY {} {}", item.id, item.payload)?;
        self.send(line)
    }

    /// One `send`; see `# Simplifications` on why a short one is an error.
    fn send(&mut self, line: &[u8]) -> io::Result<()> {
        let n = self.stream.write(line)?;
        if n < line.len() {
            return Err(io::Error::other("the floor does not queue short writes"));
        }
        Ok(())
    }

    /// Reads what the socket has; returns the reply's length (without its
    /// `\n`) once it ends with `\n`, and forgets it for the next one;
    /// `None` when the socket is empty before the line is whole.
    fn read_reply(&mut self) -> io::Result<Option<usize>> {
        loop {
            if let Some(end) = self.reply[..self.len].iter().position(|&b| b == b'\n') {
                if end + 1 != self.len {
                    return Err(io::Error::other("more than one reply at once"));
                }
                self.len = 0;
                return Ok(Some(end));
            }
            match self.stream.read(&mut self.reply[self.len..]) {
                Ok(0) => return Err(io::Error::other("the server closed the connection")),
                Ok(n) => self.len += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
            if self.len == REPLY_BUFFER {
                return Err(io::Error::other("a reply longer than any SLOW/1 reply"));
            }
        }
    }
}

/// The reply must be exactly `expected`.
fn check(reply: &[u8], expected: &[u8]) -> io::Result<()> {
    if reply == expected {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "expected {:?}, got {:?}",
            String::from_utf8_lossy(expected),
            String::from_utf8_lossy(reply)
        )))
    }
}

/// The reply must be `200 <hash>` for this item.
fn check_answer(reply: &[u8], hash: ResultHash, line: &mut Vec<u8>) -> io::Result<()> {
    line.clear();
    write!(line, "200 {hash}")?;
    check(reply, line)
}

/// Waits for events, and again if the wait was interrupted: `EINTR` means
/// nothing happened, not that something failed. A signal with a handler is
/// one cause. The race meets another: after 08-uring's ring is closed, the
/// thread that used it can find its next wait returning `EINTR` with no
/// signal at all (`strace -f -e trace=epoll_wait -e signal=all` on `race
/// --only uring,floor --conns 1` shows it; io_uring notifies a thread of
/// work for it the way a signal would, which is the likely cause).
fn wait(poll: &mut Poll, events: &mut Events) -> io::Result<()> {
    loop {
        match poll.poll(events, None) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}
