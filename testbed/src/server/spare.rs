//! The spare descriptor: how the accept thread still answers a client when
//! the process has no descriptor left.
//!
//! Past `RLIMIT_NOFILE`, `accept` fails with `EMFILE` and leaves the
//! connection in the backlog, where its client would wait forever. So the
//! accept thread keeps one descriptor free for that moment, a copy of
//! `/dev/null` (the *slot*): it closes it, accepts one connection into the
//! freed number, answers `503 out of descriptors`, and makes that number
//! the slot again.
//!
//! Three things make this subtler than it looks:
//!
//! - **`accept` fails with `EMFILE` even when nobody is waiting.** Linux
//!   reserves the new descriptor before it looks at the backlog. Once the
//!   spare's own accept finds the backlog empty, the accept thread must go
//!   back to `poll` and wait for the next client; retrying at once would
//!   spin a core for as long as the shortage lasts ([`Shortage::Drained`]).
//! - **Other threads take descriptors too.** Any thread of the process may
//!   open a file of its own for a moment: with `strace -f -e trace=openat`
//!   on a starved `slow-server`, new connection threads are seen reading
//!   `/sys/devices/system/cpu/online` (the C library's `malloc`, sizing
//!   its arenas on a thread's first allocation). A descriptor number that
//!   is free for a moment can go to such a thread. So the refused socket
//!   is never closed and the slot opened again, two calls with a free
//!   number between them: `dup3` puts a copy of `/dev/null` over the
//!   socket's number in one call, which closes the socket and keeps the
//!   number ([`Spare::keep`]). That is why the spare is two descriptors,
//!   the slot and the `/dev/null` it is copied from.
//! - **The one free moment left can still be lost**, between closing the
//!   slot and the `accept` that uses it. Then the slot is gone until the
//!   next accept succeeds, and that connection pays for it: it is turned
//!   away and its number becomes the slot ([`Spare::accepted`]). Admitting
//!   it instead would leave the server without a slot for the rest of the
//!   shortage, so that every later client waits in the backlog, silent,
//!   until some connection closes, and is then admitted: a client that
//!   should have read `503` reads nothing at all.
//!
//! And the shortage itself flickers: one accept fails, a thread closes its
//! file, the next succeeds. So a shortage is said on stderr once, and not
//! again until a whole [`QUIET`] has passed without turning anyone away: a
//! line per refused client, or per flicker, would bury the one that
//! explains them.

use std::fs::File;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::time::{Duration, Instant};

use nix::fcntl::OFlag;
use nix::unistd::dup3;

use super::NO_DESCRIPTORS_REASON;
use super::session;
use super::stats::Counters;

/// What the spare descriptor is: any file will do, and `/dev/null` is
/// always there.
const SPARE_PATH: &str = "/dev/null";

/// How long the server must go without turning anyone away before a
/// new shortage is said again.
pub(super) const QUIET: Duration = Duration::from_secs(1);

/// A descriptor kept free for the moment there is none left.
pub(super) struct Spare {
    /// What to open as the spare: [`SPARE_PATH`], or in tests a path that
    /// cannot be opened, to play a server that never had a spare.
    path: &'static Path,
    /// The file every slot is a copy of, open for the server's life.
    source: Option<File>,
    /// The descriptor number given up for one accept when there is no
    /// other: `None` while it is lost to another thread.
    slot: Option<OwnedFd>,
    /// When the last connection was turned away (or found none to turn
    /// away), to say each shortage once.
    last_refusal: Option<Instant>,
}

/// What [`Spare::turn_away`] did, and so what the accept thread does next.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Shortage {
    /// One waiting connection was answered `503` (or had already gone):
    /// accept the next.
    TurnedAway,
    /// Nobody was waiting: go back to `poll` until a client comes.
    Drained,
    /// There is no slot to free, or the accept failed for want of
    /// something else (memory): pause before trying again.
    Stuck,
}

impl Spare {
    /// Opens the spare descriptor.
    pub(super) fn take() -> Spare {
        Spare::at(Path::new(SPARE_PATH))
    }

    fn at(path: &'static Path) -> Spare {
        let mut spare = Spare {
            path,
            source: File::open(path).ok(),
            slot: None,
            last_refusal: None,
        };
        spare.slot = spare.copy();
        spare
    }

    /// A new slot, copied from the source (opened now if it could not be
    /// before). Fails when no descriptor is free.
    fn copy(&mut self) -> Option<OwnedFd> {
        if self.source.is_none() {
            self.source = File::open(self.path).ok();
        }
        let source = self.source.as_ref()?;
        source.try_clone().ok().map(OwnedFd::from)
    }

    /// Makes a turned-away connection's descriptor number the slot, in one
    /// `dup3` (see the module's documentation for why not close and open).
    fn keep(&mut self, stream: TcpStream) {
        let mut number = OwnedFd::from(stream);
        if let Some(source) = &self.source
            && dup3(source, &mut number, OFlag::O_CLOEXEC).is_ok()
        {
            self.slot = Some(number);
        }
    }

    /// An accept succeeded: the stream to admit, or `None` if the slot had
    /// been lost and this connection was turned away to win it back.
    pub(super) fn accepted(&mut self, stream: TcpStream, counters: &Counters) -> Option<TcpStream> {
        // A server that could not open its source at start (it started at
        // its limit) tries again now that a descriptor was free.
        if self.slot.is_none() && self.source.is_none() {
            self.slot = self.copy();
        }
        // Still no source: nothing to win a slot back with, and turning
        // everyone away would serve nobody.
        if self.slot.is_some() || self.source.is_none() {
            return Some(stream);
        }
        session::refuse(&stream, NO_DESCRIPTORS_REASON);
        counters.out_of_descriptors();
        self.keep(stream);
        None
    }

    /// Whether a shortage at `now` is a new one, worth a line: the first,
    /// or the first after [`QUIET`] without one.
    fn is_new_shortage(&mut self, now: Instant) -> bool {
        let new = self
            .last_refusal
            .is_none_or(|last| now.saturating_duration_since(last) >= QUIET);
        self.last_refusal = Some(now);
        new
    }

    /// Out of descriptors: frees the slot, turns one waiting connection
    /// away with `503`, and makes its number the slot again.
    pub(super) fn turn_away(&mut self, listener: &TcpListener, counters: &Counters) -> Shortage {
        if self.is_new_shortage(Instant::now()) {
            eprintln!(
                "slow-server: out of descriptors ({}): turning connections away with \
                 `503 {NO_DESCRIPTORS_REASON}` until some close (raise `ulimit -n`, or \
                 shorten --idle-timeout)",
                descriptor_limit()
            );
        }
        // A slot lost to another thread may be free again by now.
        let Some(slot) = self.slot.take().or_else(|| self.copy()) else {
            return Shortage::Stuck;
        };
        drop(slot);
        let shortage = match listener.accept() {
            Ok((stream, _)) => {
                session::refuse(&stream, NO_DESCRIPTORS_REASON);
                counters.out_of_descriptors();
                self.keep(stream);
                Shortage::TurnedAway
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Shortage::Drained,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionAborted | io::ErrorKind::Interrupted
                ) =>
            {
                Shortage::TurnedAway
            }
            Err(_) => Shortage::Stuck,
        };
        // Nothing was accepted into the freed number (or `dup3` failed): it
        // is free, unless another thread has just taken it; then the next
        // accept wins it back (`accepted`).
        if self.slot.is_none() {
            self.slot = self.copy();
        }
        shortage
    }
}

/// The soft `RLIMIT_NOFILE`, in words, for the out-of-descriptors line.
fn descriptor_limit() -> String {
    match rlimit::Resource::NOFILE.get() {
        Ok((soft, _)) => format!("RLIMIT_NOFILE is {soft}"),
        Err(_) => "RLIMIT_NOFILE reached".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader};
    use std::os::fd::AsRawFd;

    use super::*;

    fn listener() -> TcpListener {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a port");
        listener.set_nonblocking(true).expect("non-blocking");
        listener
    }

    fn read_line(client: TcpStream) -> String {
        client
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut line = String::new();
        BufReader::new(client).read_line(&mut line).unwrap();
        line
    }

    #[test]
    fn a_waiting_client_is_answered_503_and_counted() {
        let listener = listener();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let counters = Counters::default();
        let mut spare = Spare::take();
        assert_eq!(spare.turn_away(&listener, &counters), Shortage::TurnedAway);
        assert_eq!(read_line(client), "503 out of descriptors\n");
        assert_eq!(counters.snapshot().out_of_descriptors, 1);
        assert!(spare.slot.is_some(), "the slot is taken back");
    }

    /// The refused socket's number becomes the slot in one call: no moment
    /// when another thread could take it.
    #[test]
    fn the_refused_connections_number_becomes_the_slot() {
        let listener = listener();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let mut spare = Spare::take();
        let (stream, _) = loop {
            match listener.accept() {
                Ok(accepted) => break accepted,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::yield_now(),
                Err(e) => panic!("accept: {e}"),
            }
        };
        let number = stream.as_raw_fd();
        spare.slot = None;
        assert!(spare.accepted(stream, &Counters::default()).is_none());
        let slot = spare.slot.as_ref().expect("the slot is back");
        assert_eq!(slot.as_raw_fd(), number, "in the refused socket's number");
        assert_eq!(read_line(client), "503 out of descriptors\n");
    }

    /// `accept` says `EMFILE` with nobody waiting: the accept thread must
    /// wait in `poll`, not try again at once, or it spins a core.
    #[test]
    fn an_empty_backlog_sends_the_accept_thread_back_to_poll() {
        let mut spare = Spare::take();
        let shortage = spare.turn_away(&listener(), &Counters::default());
        assert_eq!(shortage, Shortage::Drained);
        assert!(spare.slot.is_some(), "the slot is taken back");
    }

    /// Another thread took the slot: the next accept wins it back by
    /// turning its connection away; the one after is admitted.
    #[test]
    fn a_slot_lost_to_another_thread_is_won_back_by_the_next_accept() {
        let listener = listener();
        let addr = listener.local_addr().unwrap();
        let counters = Counters::default();
        let mut spare = Spare::take();
        spare.slot = None;
        let first = TcpStream::connect(addr).unwrap();
        let accept = || loop {
            match listener.accept() {
                Ok((stream, _)) => break stream,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::yield_now(),
                Err(e) => panic!("accept: {e}"),
            }
        };
        assert!(spare.accepted(accept(), &counters).is_none(), "turned away");
        assert_eq!(read_line(first), "503 out of descriptors\n");
        assert!(spare.slot.is_some(), "won back");
        let _second = TcpStream::connect(addr).unwrap();
        assert!(spare.accepted(accept(), &counters).is_some(), "admitted");
        assert_eq!(counters.snapshot().out_of_descriptors, 1);

        // A server that never had a spare admits everyone, and a shortage
        // leaves it stuck rather than spinning.
        let mut none = Spare::at(Path::new("/nonexistent/spare"));
        let _third = TcpStream::connect(addr).unwrap();
        assert!(none.accepted(accept(), &counters).is_some());
        assert_eq!(none.turn_away(&listener, &counters), Shortage::Stuck);
    }

    /// A shortage that flickers (a refusal, an accept, a refusal) is said
    /// once; one after a quiet second is said again.
    #[test]
    fn a_shortage_is_said_once_until_a_quiet_second() {
        let mut spare = Spare::at(Path::new("/nonexistent/spare"));
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        assert!(spare.is_new_shortage(at(0)), "the first is said");
        assert!(!spare.is_new_shortage(at(5)));
        assert!(!spare.is_new_shortage(at(900)));
        assert!(!spare.is_new_shortage(at(1_800)), "refusals went on");
        assert!(spare.is_new_shortage(at(2_800)), "after a quiet second");
    }
}
