//! One connection of the slow server, from its first line to its close.
//!
//! A session reads request lines with the crate's one framer (through
//! [`Conn`]), checks that they come in a valid order, waits the simulated
//! service time, then answers, or sabotages the answer when the fault plan
//! says so. Requests on one connection are served one after the other, in
//! order, like a backend that handles a connection serially: a pipelined
//! second line starts its service time when the first has been answered.
//!
//! How a session ends decides how its socket closes ([`End`]): gently
//! after a last reply, not at all for `blackhole` (until the server stops
//! or the connection's idle timeout), and with a reset for `reset` and for
//! an outage. The two ways to end a connection before any session starts,
//! `refuse` (`503`) and `reset`, are here too: the accept thread calls
//! them, and a session never calls the accept thread.
//!
//! Not here: accepting, the connection limit, the outage window's clock,
//! stopping (`server.rs`, `accept.rs`).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use socket2::SockRef;

use crate::conn::Conn;
use crate::dice::{Purpose, roll};
use crate::faults::Fault;
use crate::framing::LineError;
use crate::protocol::{ItemId, MAX_LINE, Payload, Phase, Reply, Request, ResultHash};

use super::{MAX_SERVICE_TIME, Peer, SLEEP_CHUNK, Shared};

/// The reason of an injected `NAK`.
const NAK_REASON: &str = "injected nak";

/// The reason of an injected `500`.
const KO_REASON: &str = "injected ko";

/// The `trickle` fault writes a reply in this many pieces...
pub const TRICKLE_PIECES: usize = 4;

/// ...with this pause between two pieces: three pauses add about 1 ms, enough
/// to split the reply across reads, not enough to dominate a benchmark.
pub const TRICKLE_PAUSE: Duration = Duration::from_micros(300);

/// The timer slack of a connection thread, in nanoseconds: far below the
/// 10 us resolution of the overshoot histogram.
#[cfg(target_os = "linux")]
const TIMER_SLACK_NS: std::ffi::c_ulong = 1_000;

/// Length of an over-long garbage reply: well past [`MAX_LINE`], so any
/// correct client gives up before finding its end.
const GARBAGE_LINE: usize = 2_000;

/// After a reply that ends the connection, how long the server keeps reading
/// (and discarding) what the client still sends. See [`close_gently`].
const LINGER: Duration = Duration::from_secs(1);

/// The two ways a `garbage` reply breaks the framing rules. Which one a
/// request line gets is decided, like the fault itself, from
/// `(seed, id, phase)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Garbage {
    /// A line of 2,000 printable bytes: no `\n` within [`MAX_LINE`].
    TooLong,
    /// A short line with bytes that are not printable ASCII.
    NotPrintable,
}

impl Garbage {
    /// The flavour of garbage the server sends for this request line.
    pub fn choose(seed: u64, id: ItemId, phase: Phase) -> Garbage {
        if roll(seed, id, phase, Purpose::Variant) < 0.5 {
            Garbage::TooLong
        } else {
            Garbage::NotPrintable
        }
    }

    /// The bytes sent.
    fn bytes(self) -> Vec<u8> {
        match self {
            Garbage::TooLong => {
                let mut line = b"200 ".to_vec();
                line.resize(GARBAGE_LINE, b'x');
                line.push(b'\n');
                line
            }
            Garbage::NotPrintable => b"200 \x00\x07garbage\xff\n".to_vec(),
        }
    }
}

/// Serves one connection until it ends; never panics, whatever the client
/// sends. The caller closes the socket afterwards.
pub(super) fn serve(peer: &Peer, shared: &Shared) {
    let stream = &peer.stream;
    // The kernel may delay a sleeping thread's wake-up by its "timer
    // slack" (50 us by default) to batch wake-ups and save power. This
    // thread's sleeps *are* the simulation: take the slack away, which
    // brings the median overshoot from about 70 us to about 20 us here. A
    // failure leaves the default, which is only less precise.
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_timerslack(TIMER_SLACK_NS);
    // The client's port names this connection on the live board (0 if the
    // socket is already gone, which leaves nothing to show anyway).
    let port = stream.peer_addr().map_or(0, |addr| addr.port());
    let mut session = Session {
        conn: Conn::new(stream),
        peer,
        shared,
        port,
        awaiting_body: None,
    };
    let end = match session.run() {
        End::Hang => {
            // Keep the connection open and answer nothing, but keep reading:
            // a client that closes is noticed (read returns 0), and so is a
            // server that stops or goes dark (it shuts the socket down), and
            // an idle timeout (the read fails).
            match io::copy(&mut &*stream, &mut io::sink()) {
                Err(e) if is_timeout(&e) => End::Idle,
                _ if peer.hit_by_outage() => End::Outage,
                _ => End::Gone,
            }
        }
        End::Blackhole => {
            // Neither read nor write nor close: only the server stopping,
            // an outage or the idle timeout end it.
            let deadline = shared.idle_timeout.map(|idle| Instant::now() + idle);
            match pause_until(peer, shared, deadline) {
                Pause::Outage => End::Outage,
                Pause::Elapsed => End::Idle,
                Pause::Stopping => End::Gone,
            }
        }
        other => other,
    };
    match end {
        End::Gone | End::Hang | End::Blackhole => {}
        End::Close => close_gently(stream),
        End::Reset => reset(stream),
        End::Outage => {
            reset(stream);
            shared.counters.reset_by_outage();
        }
        End::Idle => shared.counters.idle_closed(),
    }
    shared.served.gone(port);
}

/// Aborts a connection: `SO_LINGER` with a zero timeout makes `close` send
/// a reset (RST) instead of the orderly end (FIN), and drop what is unsent.
pub(super) fn reset(stream: &TcpStream) {
    // Setting it on a connection the client already reset fails: the
    // result is the same.
    let _ = SockRef::from(stream).set_linger(Some(Duration::ZERO));
}

/// Turns a connection away with `503 <reason>`. Called on the accept
/// thread, so a connection turned away never costs a thread: it must not
/// block.
pub(super) fn refuse(stream: &TcpStream, reason: &str) {
    /// Enough reads to take the client's first lines, but bounded: the
    /// accept thread has other clients to take.
    const DRAIN_READS: usize = 4;

    let line = format!("{}\n", Reply::Busy(reason.into()));
    let mut stream = stream;
    // A new socket's send buffer is empty, so a 9-byte write cannot block.
    let _ = stream.write_all(line.as_bytes());
    let _ = stream.shutdown(Shutdown::Write);
    // A fast client has often sent its first request already. Closing a
    // socket with unread data makes the kernel answer with a reset (RST)
    // instead of an orderly end (FIN), and a reset can destroy the `503`
    // before the client reads it; so take what is there, without waiting.
    if stream.set_nonblocking(true).is_ok() {
        let mut sink = [0u8; MAX_LINE];
        for _ in 0..DRAIN_READS {
            if !matches!(stream.read(&mut sink), Ok(n) if n > 0) {
                break;
            }
        }
    }
}

/// How a session ended, which decides how its socket is closed.
enum End {
    /// The client left, the socket failed or the server is stopping:
    /// nobody is listening any more.
    Gone,
    /// The server closes after what it wrote (`QUIT`, `400`, `drop`,
    /// `garbage`).
    Close,
    /// The `hang` fault: never answer, wait for the client to give up.
    Hang,
    /// The `reset` fault: abort with a TCP reset.
    Reset,
    /// The `blackhole` fault: go silent, and stay open.
    Blackhole,
    /// An outage began: reset, like every open connection.
    Outage,
    /// No request line for the idle timeout: close.
    Idle,
}

/// Why [`pause_until`] returned.
enum Pause {
    /// The deadline passed.
    Elapsed,
    /// The server is stopping.
    Stopping,
    /// An outage began.
    Outage,
}

/// Sleeps until `deadline` (forever if `None`) in chunks of at most
/// [`SLEEP_CHUNK`], so that a server stopping or an outage beginning is
/// noticed within one chunk, whatever the simulated latency.
fn pause_until(peer: &Peer, shared: &Shared, deadline: Option<Instant>) -> Pause {
    loop {
        if shared.stopping() {
            return Pause::Stopping;
        }
        if peer.hit_by_outage() {
            return Pause::Outage;
        }
        let left = match deadline {
            Some(deadline) => deadline.saturating_duration_since(Instant::now()),
            None => SLEEP_CHUNK,
        };
        if left.is_zero() {
            return Pause::Elapsed;
        }
        thread::sleep(left.min(SLEEP_CHUNK));
    }
}

/// Whether a read failed because the socket's read timeout (the idle
/// timeout) expired: Linux says `WouldBlock`, other systems `TimedOut`.
fn is_timeout(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// The state of one connection.
struct Session<'a> {
    conn: Conn<&'a TcpStream>,
    peer: &'a Peer,
    shared: &'a Shared,
    /// The client's port, this connection's name on the live board.
    port: u16,
    /// Set after `OK` to `HEAD <id>`: the next line must be `BODY <id> ...`.
    awaiting_body: Option<ItemId>,
}

/// A request line that passed the sequence rules.
enum Step {
    /// Serve this phase of this item; `GET` and `BODY` carry a payload.
    Serve(ItemId, Phase, Option<Payload>),
    /// `QUIT`.
    Quit,
}

impl Session<'_> {
    fn run(&mut self) -> End {
        loop {
            let line = match self.conn.read_line() {
                Ok(Some(line)) => line,
                Err(LineError::Frame(e)) => return self.reject(e.to_string()),
                // The outage shut the socket's read side to wake this read.
                _ if self.peer.hit_by_outage() => return End::Outage,
                Err(LineError::Io(e)) if is_timeout(&e) => return End::Idle,
                // A close between lines or in the middle of one, a reset, or
                // the server stopping: in every case nobody waits for an answer.
                Ok(None) | Err(LineError::EofMidLine | LineError::Io(_)) => return End::Gone,
            };
            // The service time counts from here: the line is complete.
            let received = Instant::now();
            let step = Request::parse(&line)
                .map_err(|e| e.to_string())
                .and_then(|request| self.sequence(request));
            let end = match step {
                Ok(Step::Serve(id, phase, payload)) => self.answer(id, phase, payload, received),
                Ok(Step::Quit) => Some(End::Close),
                Err(reason) => Some(self.reject(reason)),
            };
            if let Some(end) = end {
                return end;
            }
        }
    }

    /// Applies the one ordering rule of SLOW/1: `BODY <id>` comes right
    /// after `OK` to `HEAD <id>`, and only then.
    fn sequence(&mut self, request: Request) -> Result<Step, String> {
        match (self.awaiting_body.take(), request) {
            (Some(head), Request::Body(id, payload)) if id == head => {
                Ok(Step::Serve(id, Phase::Body, Some(payload)))
            }
            (Some(head), _) => Err(format!("expected BODY {head} after OK to HEAD {head}")),
            (None, Request::Body(id, _)) => Err(format!("BODY {id} without an OK to HEAD {id}")),
            (None, Request::Get(id, payload)) => Ok(Step::Serve(id, Phase::Get, Some(payload))),
            (None, Request::Head(id)) => Ok(Step::Serve(id, Phase::Head, None)),
            (None, Request::Quit) => Ok(Step::Quit),
        }
    }

    /// Serves one request line: service time, then reply or fault. `None`
    /// means the connection goes on.
    fn answer(
        &mut self,
        id: ItemId,
        phase: Phase,
        payload: Option<Payload>,
        received: Instant,
    ) -> Option<End> {
        let shared = self.shared;
        let config = &shared.config;
        shared.counters.request(phase);
        shared.served.begin(self.port, id, phase, received);
        let nominal = config
            .latency
            .sample(config.seed, id, phase)
            .min(MAX_SERVICE_TIME);
        match pause_until(self.peer, shared, Some(received + nominal)) {
            Pause::Elapsed => {}
            Pause::Stopping => return Some(End::Gone),
            Pause::Outage => return Some(End::Outage),
        }
        shared.counters.served(nominal, received.elapsed());
        let fault = config.faults.decide(config.seed, id, phase);
        shared.served.push(self.port, id, phase, received, fault);

        let reply = match &payload {
            None => Reply::Ok,
            Some(payload) => Reply::Success(ResultHash::of(id, payload)),
        };
        if let Some(fault) = fault {
            shared.counters.fault(fault);
        }
        let written = match fault {
            None => self.conn.write_line(&reply),
            Some(Fault::Nak) => self.conn.write_line(&Reply::Nak(NAK_REASON.into())),
            Some(Fault::Ko) => self.conn.write_line(&Reply::Failure(KO_REASON.into())),
            Some(Fault::Hang) => return Some(End::Hang),
            Some(Fault::Drop) => return Some(End::Close),
            Some(Fault::Garbage) => {
                let garbage = Garbage::choose(config.seed, id, phase).bytes();
                // The connection ends either way; a failed write changes nothing.
                let _ = self.conn.get_mut().write_all(&garbage);
                return Some(End::Close);
            }
            Some(Fault::Trickle) => trickle(self.conn.get_mut(), &reply),
            Some(Fault::Reset) => return Some(End::Reset),
            Some(Fault::Blackhole) => return Some(End::Blackhole),
        };
        if written.is_err() {
            return Some(End::Gone);
        }
        if reply == Reply::Ok && matches!(fault, None | Some(Fault::Trickle)) {
            self.awaiting_body = Some(id);
        }
        None
    }

    /// Answers `400 <reason>`; the connection then closes.
    fn reject(&mut self, reason: String) -> End {
        self.shared.counters.bad_request();
        match self.conn.write_line(&Reply::BadRequest(reason)) {
            Ok(()) => End::Close,
            Err(_) => End::Gone,
        }
    }
}

/// Writes `reply` a few bytes at a time, so the client sees it arrive in
/// pieces (Nagle's algorithm is off: each write leaves as its own segment).
fn trickle(stream: &mut &TcpStream, reply: &Reply) -> io::Result<()> {
    let line = format!("{reply}\n");
    let piece = line.len().div_ceil(TRICKLE_PIECES);
    for (i, bytes) in line.as_bytes().chunks(piece).enumerate() {
        if i > 0 {
            thread::sleep(TRICKLE_PAUSE);
        }
        stream.write_all(bytes)?;
    }
    Ok(())
}

/// Closes after a final reply without destroying it.
///
/// `close` on a socket whose receive queue still holds data (the client
/// pipelined more lines) sends a reset instead of a FIN, and a reset can
/// discard the reply the client has not read yet. So: send the FIN with
/// `shutdown(Write)`, then read and discard until the client closes too, or
/// [`LINGER`] has passed (the "lingering close" of web servers).
fn close_gently(stream: &TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = Instant::now() + LINGER;
    let mut sink = [0u8; MAX_LINE];
    let mut stream = stream;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        // `set_read_timeout` refuses a zero duration: that case is the end.
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match stream.read(&mut sink) {
            Ok(n) if n > 0 => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // The client closed, the linger expired, or the server stops.
            _ => return,
        }
    }
}
