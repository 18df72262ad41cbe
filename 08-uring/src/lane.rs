//! A lane: one connection carrying at most one item at a time, driven by
//! completions instead of readiness.
//!
//! Stage 4's `Slot` is told "your socket is readable" and reads; a lane is
//! told "your read is done, here are the bytes". Everything else is the
//! same and reused: the conversation is 04-select's [`Exchange`], the
//! bytes become lines in the one [`LineFramer`], and what a reply means is
//! `testbed::outcome`'s to say.
//!
//! What is new is who holds what. A lane's two buffers are either here or
//! lent to the kernel ([`Held`]); a lane whose connection must go (an
//! error, a timeout, a reply nobody asked for) first cancels what it still
//! has in flight, and closes its socket only when every operation on it
//! has completed and every buffer is back ([`Lane::closing`]). Until then
//! it takes no item.
//!
//! Not here: the ring ([`crate::ring`]), which lane gets which item
//! (`driver.rs`).

use std::io::{self, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use select::exchange::{Exchange, Step};
use socket2::{Domain, SockAddr, Socket, Type};
use testbed::framing::{LineFramer, READ_CHUNK};
use testbed::outcome::{ErrorKind, Failure, Outcome};
use testbed::protocol::{Phases, Reply, Request};
use testbed::workload::Item;

use crate::ring::{Completion, Op, OpId, Ring, SharedFd};

// ANCHOR: held
/// Who has a buffer now: this lane, or the kernel, through the ring's
/// operation `OpId`, until that operation's completion hands it back.
#[derive(Debug)]
enum Held {
    Here(Vec<u8>),
    Lent(OpId),
}
// ANCHOR_END: held

impl Held {
    /// The buffer, taken out to be lent (the caller puts `Lent` back).
    fn take(&mut self) -> Vec<u8> {
        match std::mem::replace(self, Held::Here(Vec::new())) {
            Held::Here(buf) => buf,
            Held::Lent(op) => panic!("operation {op:?} still holds this buffer"),
        }
    }

    fn lent(&self) -> Option<OpId> {
        match self {
            Held::Lent(op) => Some(*op),
            Held::Here(_) => None,
        }
    }
}

/// An item that finished on a lane.
#[derive(Debug)]
pub struct Finished {
    /// The item.
    pub item: Item,
    /// The lane it ran on (its timeline lane).
    pub lane: usize,
    /// When it was handed to the lane.
    pub started: Instant,
    /// How it ended.
    pub outcome: Outcome,
}

/// What every lane is told once: where to connect, how long to wait.
#[derive(Debug, Clone, Copy)]
pub struct LaneConfig {
    /// The server.
    pub server: SocketAddr,
    /// One or two phases.
    pub phases: Phases,
    /// The limit on each read (`None`: wait for ever).
    pub read_timeout: Option<Duration>,
    /// The limit on each connect.
    pub connect_timeout: Duration,
}

/// One connection and the item it carries.
#[derive(Debug)]
pub struct Lane {
    index: usize,
    /// The connection's socket, shared with the operations queued on it:
    /// it closes when the lane lets go *and* the last of them completes.
    socket: Option<SharedFd>,
    /// The handshake has completed on `socket`.
    connected: bool,
    /// The connect in flight, if any (it lends the address, not a buffer).
    connecting: Option<OpId>,
    send: Held,
    recv: Held,
    /// The next line to send, waiting for the handshake or for the send
    /// buffer (lent to the previous line's send until its completion).
    unsent: Option<Request>,
    /// The item in flight, when it was started, and its conversation.
    job: Option<(Item, Instant, Exchange)>,
    framer: LineFramer,
    /// The connection is being taken down: cancels are out, and the socket
    /// closes when the last operation on it has completed.
    closing: bool,
}

impl Lane {
    /// Lane number `index`, with no connection yet.
    pub fn new(index: usize) -> Lane {
        Lane {
            index,
            socket: None,
            connected: false,
            connecting: None,
            send: Held::Here(Vec::with_capacity(128)),
            recv: Held::Here(vec![0; READ_CHUNK]),
            unsent: None,
            job: None,
            framer: LineFramer::new(),
            closing: false,
        }
    }

    /// True when the lane can take an item.
    pub fn is_free(&self) -> bool {
        self.job.is_none() && !self.closing
    }

    /// True when the lane has a socket (connected or connecting).
    pub fn has_connection(&self) -> bool {
        self.socket.is_some()
    }

    /// True while an operation on this lane is in the kernel's hands.
    pub fn busy_in_kernel(&self) -> bool {
        self.connecting.is_some() || self.send.lent().is_some() || self.recv.lent().is_some()
    }

    /// Starts `item`: connects first if the lane has no connection, then
    /// sends its first line with the read for the reply queued behind it.
    pub fn start(
        &mut self,
        item: Item,
        config: &LaneConfig,
        ring: &mut Ring,
        done: &mut Vec<Finished>,
    ) -> io::Result<()> {
        assert!(self.is_free(), "lane {} is busy", self.index);
        let (exchange, first) = Exchange::start(item.clone(), config.phases);
        self.job = Some((item, Instant::now(), exchange));
        if self.socket.is_none() {
            match Socket::new(Domain::for_address(config.server), Type::STREAM, None) {
                Ok(socket) => {
                    // Each line is a whole request: send it now, not after
                    // Nagle's wait for more (as every rung does).
                    let _ = socket.set_tcp_nodelay(true);
                    let fd = SharedFd::new(socket);
                    let addr = SockAddr::from(config.server);
                    let id = ring.connect(self.index, &fd, addr, config.connect_timeout)?;
                    self.socket = Some(fd);
                    self.connecting = Some(id);
                }
                Err(e) => return self.fail(Failure::from_io(&e), ring, done),
            }
        }
        self.unsent = Some(first);
        if self.connected {
            self.exchange_io(config, ring)?;
        }
        Ok(())
    }

    // ANCHOR: on_completion
    /// Takes back what a completion returns and moves the lane on: the
    /// handshake's end, the rest of a short send, the reply's bytes.
    pub fn on_completion(
        &mut self,
        completion: Completion,
        config: &LaneConfig,
        ring: &mut Ring,
        done: &mut Vec<Finished>,
    ) -> io::Result<()> {
        if completion.timeout_refused() {
            // Every read of the run would go the same way: end the run and
            // say why, rather than fail items for what no server did.
            return Err(completion
                .result
                .expect_err("a refused timeout is an error"));
        }
        let timed_out = completion.timed_out;
        let result = completion.result;
        match completion.op {
            Op::Connect(_address) => {
                self.connecting = None;
                match result {
                    _ if self.closing => {}
                    Ok(_) => {
                        self.connected = true;
                        self.exchange_io(config, ring)?;
                    }
                    Err(_) if timed_out => {
                        let limit = testbed::duration::format_duration(config.connect_timeout);
                        let failure = Failure::new(
                            ErrorKind::Timeout,
                            format!("no handshake within {limit}"),
                        );
                        self.fail(failure, ring, done)?;
                    }
                    Err(e) => self.fail(Failure::from_io(&e), ring, done)?,
                }
            }
            Op::Send { buf, from } => {
                let len = buf.len();
                self.send = Held::Here(buf);
                match result {
                    _ if self.closing => {}
                    Ok(n) if from + n < len => {
                        // A short send: the rest goes again, from where it stopped.
                        let fd = self.fd();
                        let id = ring.send(self.index, &fd, self.send.take(), from + n)?;
                        self.send = Held::Lent(id);
                    }
                    Ok(_) => self.send_unsent(ring)?,
                    Err(e) => self.fail(Failure::from_io(&e), ring, done)?,
                }
            }
            Op::Recv(buf) => {
                let read = match (&result, self.closing) {
                    (Ok(n), false) => {
                        self.framer.push(&buf[..*n]);
                        Some(*n)
                    }
                    _ => None,
                };
                self.recv = Held::Here(buf);
                match (read, result) {
                    _ if self.closing => {}
                    (Some(0), _) => self.on_eof(ring, done)?,
                    (Some(_), _) => self.on_lines(config, ring, done)?,
                    (None, Err(_)) if timed_out => {
                        let limit = config
                            .read_timeout
                            .map_or("ever".into(), testbed::duration::format_duration);
                        let failure =
                            Failure::new(ErrorKind::Timeout, format!("no reply within {limit}"));
                        self.fail(failure, ring, done)?;
                    }
                    (None, Err(e)) => self.fail(Failure::from_io(&e), ring, done)?,
                    (None, Ok(_)) => unreachable!("a read's bytes are pushed unless closing"),
                }
            }
        }
        self.close_when_idle();
        Ok(())
    }
    // ANCHOR_END: on_completion

    /// Every complete line the framer holds moves the conversation on; when
    /// none is left and a reply is still due, the next read goes out.
    fn on_lines(
        &mut self,
        config: &LaneConfig,
        ring: &mut Ring,
        done: &mut Vec<Finished>,
    ) -> io::Result<()> {
        loop {
            let line = match self.framer.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => {
                    let failure = Failure::new(ErrorKind::Protocol, e.to_string());
                    return self.fail(failure, ring, done);
                }
            };
            let reply = match Reply::parse(&line) {
                Ok(reply) => reply,
                Err(e) => {
                    let failure = Failure::new(ErrorKind::Protocol, format!("bad reply: {e}"));
                    return self.fail(failure, ring, done);
                }
            };
            let Some((_, _, exchange)) = self.job.as_mut() else {
                // A line nobody asked for: the connection is out of step.
                let failure = Failure::new(
                    ErrorKind::Protocol,
                    format!("reply '{reply}' with no request in flight"),
                );
                return self.fail(failure, ring, done);
            };
            match exchange.on_reply(reply) {
                Step::Send(next) => {
                    self.unsent = Some(next);
                    self.send_unsent(ring)?;
                }
                Step::Done(outcome) => {
                    let breaks = matches!(&outcome, Err(f) if f.kind.breaks_connection());
                    self.finish(outcome, done);
                    if breaks {
                        return self.break_connection(ring);
                    }
                }
            }
        }
        if self.job.is_some() {
            // A reply is still due and no complete line is here: read on.
            self.read(config, ring)?;
        } else if self.framer.buffered() > 0 {
            // Part of a line nobody asked for: out of step as well.
            let failure = Failure::new(ErrorKind::Protocol, "bytes with no request in flight");
            return self.fail(failure, ring, done);
        }
        Ok(())
    }

    /// The peer closed its side.
    fn on_eof(&mut self, ring: &mut Ring, done: &mut Vec<Finished>) -> io::Result<()> {
        let detail = if self.framer.has_partial() {
            "the server closed the connection in the middle of a line"
        } else {
            "the server closed the connection"
        };
        self.fail(Failure::new(ErrorKind::Closed, detail), ring, done)
    }

    /// Sends the waiting line and reads for its reply: two entries, one
    /// turn, one system call for both (and for every other lane's).
    fn exchange_io(&mut self, config: &LaneConfig, ring: &mut Ring) -> io::Result<()> {
        self.send_unsent(ring)?;
        self.read(config, ring)
    }

    // ANCHOR: send_unsent
    /// Lends the send buffer, filled with the waiting line, to a `send`:
    /// unless the handshake is still going on, or the buffer is still lent
    /// to the previous send (its completion calls this again).
    fn send_unsent(&mut self, ring: &mut Ring) -> io::Result<()> {
        if !self.connected || self.send.lent().is_some() {
            return Ok(());
        }
        let Some(line) = self.unsent.take() else {
            return Ok(());
        };
        let mut buf = self.send.take();
        buf.clear();
        writeln!(buf, "{line}").expect("writing to a vector cannot fail");
        let fd = self.fd();
        let id = ring.send(self.index, &fd, buf, 0)?;
        self.send = Held::Lent(id);
        Ok(())
    }
    // ANCHOR_END: send_unsent

    /// Lends the read buffer to a `recv` with the read timeout linked.
    fn read(&mut self, config: &LaneConfig, ring: &mut Ring) -> io::Result<()> {
        if self.recv.lent().is_some() {
            return Ok(()); // Already reading.
        }
        let fd = self.fd();
        let id = ring.recv(self.index, &fd, self.recv.take(), config.read_timeout)?;
        self.recv = Held::Lent(id);
        Ok(())
    }

    /// A share of the socket, for an operation to hold.
    fn fd(&self) -> SharedFd {
        self.socket.clone().expect("a lane with I/O has a socket")
    }

    fn finish(&mut self, outcome: Outcome, done: &mut Vec<Finished>) {
        if let Some((item, started, _)) = self.job.take() {
            done.push(Finished {
                item,
                lane: self.index,
                started,
                outcome,
            });
        }
    }

    /// Fails the item in flight, if any, with `failure`, and takes the
    /// connection down.
    fn fail(
        &mut self,
        failure: Failure,
        ring: &mut Ring,
        done: &mut Vec<Finished>,
    ) -> io::Result<()> {
        self.finish(Err(failure), done);
        self.break_connection(ring)
    }

    // ANCHOR: break_connection
    /// Takes the connection down: every operation still in flight on it is
    /// cancelled, and the lane waits, closing, until each has completed and
    /// given its buffer back. Closing the socket first would not be enough:
    /// the kernel holds the operation (and our buffer) whatever happens to
    /// the descriptor.
    fn break_connection(&mut self, ring: &mut Ring) -> io::Result<()> {
        if self.closing {
            return Ok(());
        }
        self.closing = true;
        let in_flight = [self.connecting, self.send.lent(), self.recv.lent()];
        for op in in_flight.into_iter().flatten() {
            ring.cancel(op)?;
        }
        self.close_when_idle();
        Ok(())
    }
    // ANCHOR_END: break_connection

    /// Closes the socket of a closing lane once nothing of it is in flight.
    fn close_when_idle(&mut self) {
        if self.closing && !self.busy_in_kernel() {
            // Nothing is in flight, so this was the last share: the
            // descriptor closes here.
            self.socket = None;
            self.connected = false;
            self.framer = LineFramer::new();
            self.unsent = None;
            self.closing = false;
        }
    }
}
