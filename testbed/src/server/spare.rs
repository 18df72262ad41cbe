//! The spare descriptor: how the accept thread still answers a client when
//! the process has no descriptor left.
//!
//! Past `RLIMIT_NOFILE`, `accept` fails with `EMFILE` and leaves the
//! connection in the backlog, where its client would wait forever. So the
//! accept thread keeps one descriptor open on `/dev/null` for that moment:
//! it closes it, accepts one connection into the freed slot, answers
//! `503 out of descriptors`, closes that, and opens the spare again.
//!
//! Two things make this subtler than it looks:
//!
//! - **`accept` fails with `EMFILE` even when nobody is waiting.** Linux
//!   reserves the new descriptor before it looks at the backlog. Once the
//!   spare's own accept finds the backlog empty, the accept thread must go
//!   back to `poll` and wait for the next client; retrying at once would
//!   spin a core for as long as the shortage lasts ([`Shortage::Drained`]).
//! - **Other threads take descriptors too.** Any thread of the process may
//!   open a file of its own for a moment (with `strace -f -e trace=openat`
//!   on a starved `slow-server`, a connection thread can be seen reading
//!   `/sys/devices/system/cpu/online` for the C library). If that happens
//!   between closing the spare and opening it again, the spare is lost
//!   until an accept succeeds ([`Spare::accepted`]) or the next shortage
//!   finds the descriptor free again. And the shortage itself flickers:
//!   one accept fails, the thread closes its file, the next succeeds.
//!
//! So a shortage is said on stderr once, and not again until a whole
//! [`QUIET`] has passed without turning anyone away: a line per refused
//! client, or per flicker, would bury the one that explains them.

use std::fs::File;
use std::io;
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use super::NO_DESCRIPTORS_REASON;
use super::session;
use super::stats::Counters;

/// What the spare descriptor is: any file will do, and `/dev/null` is
/// always there.
const SPARE_PATH: &str = "/dev/null";

/// How long the server must go without turning anyone away before a
/// new shortage is said again.
pub(super) const QUIET: Duration = Duration::from_secs(1);

/// A descriptor kept open for the moment there is none left.
pub(super) struct Spare {
    /// What to open as the spare: [`SPARE_PATH`], or in tests a path that
    /// cannot be opened, to play a descriptor taken by another thread.
    path: &'static Path,
    file: Option<File>,
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
    /// There is no spare to free, or the accept failed for want of
    /// something else (memory): pause before trying again.
    Stuck,
}

impl Spare {
    /// Opens the spare descriptor.
    pub(super) fn take() -> Spare {
        Spare::at(Path::new(SPARE_PATH))
    }

    fn at(path: &'static Path) -> Spare {
        Spare {
            path,
            file: File::open(path).ok(),
            last_refusal: None,
        }
    }

    /// An accept succeeded: if another thread had taken the spare's slot,
    /// a descriptor may be free for it again.
    pub(super) fn accepted(&mut self) {
        if self.file.is_none() {
            self.file = File::open(self.path).ok();
        }
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

    /// Out of descriptors: frees the spare, turns one waiting connection
    /// away with `503`, and takes the spare back.
    pub(super) fn turn_away(&mut self, listener: &TcpListener, counters: &Counters) -> Shortage {
        if self.is_new_shortage(Instant::now()) {
            eprintln!(
                "slow-server: out of descriptors ({}): turning connections away with \
                 `503 {NO_DESCRIPTORS_REASON}` until some close (raise `ulimit -n`, or \
                 shorten --idle-timeout)",
                descriptor_limit()
            );
        }
        // A spare lost to another thread may be free again by now.
        let Some(file) = self.file.take().or_else(|| File::open(self.path).ok()) else {
            return Shortage::Stuck;
        };
        drop(file);
        let shortage = match listener.accept() {
            Ok((stream, _)) => {
                session::refuse(&stream, NO_DESCRIPTORS_REASON);
                counters.out_of_descriptors();
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
        // The stream is closed: its slot is the spare's again, unless
        // another thread has just taken it (then `accepted` or the next
        // `turn_away` tries again).
        self.file = File::open(self.path).ok();
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
    use std::net::TcpStream;

    use super::*;

    fn listener() -> TcpListener {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a port");
        listener.set_nonblocking(true).expect("non-blocking");
        listener
    }

    #[test]
    fn a_waiting_client_is_answered_503_and_counted() {
        let listener = listener();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let counters = Counters::default();
        let mut spare = Spare::take();
        assert_eq!(spare.turn_away(&listener, &counters), Shortage::TurnedAway);
        let mut line = String::new();
        BufReader::new(client).read_line(&mut line).unwrap();
        assert_eq!(line, "503 out of descriptors\n");
        assert_eq!(counters.snapshot().out_of_descriptors, 1);
        assert!(spare.file.is_some(), "the spare is taken back");
    }

    /// `accept` says `EMFILE` with nobody waiting: the accept thread must
    /// wait in `poll`, not try again at once, or it spins a core.
    #[test]
    fn an_empty_backlog_sends_the_accept_thread_back_to_poll() {
        let mut spare = Spare::take();
        let shortage = spare.turn_away(&listener(), &Counters::default());
        assert_eq!(shortage, Shortage::Drained);
    }

    /// Another thread took the spare's slot: the next shortage finds it
    /// free again, or the next accept does.
    #[test]
    fn a_spare_lost_to_another_thread_is_taken_back() {
        let mut spare = Spare::take();
        spare.file = None;
        spare.accepted();
        assert!(spare.file.is_some(), "taken back by an accept");

        let listener = listener();
        let _client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        spare.file = None;
        assert_eq!(
            spare.turn_away(&listener, &Counters::default()),
            Shortage::TurnedAway
        );
        assert!(spare.file.is_some(), "taken back by the next shortage");

        let mut spare = Spare::at(Path::new("/nonexistent/spare"));
        assert_eq!(
            spare.turn_away(&listener, &Counters::default()),
            Shortage::Stuck
        );
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
