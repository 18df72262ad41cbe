//! One selector, three backends, picked at run time with `--backend`.
//!
//! `fd_set.rs` (for `select(2)`), `poll.rs` and `epoll.rs` each export a
//! `Poller` with the same five methods (`new`, `add`, `modify`, `delete`,
//! `wait`; the names are the OS's and polling's). The polling crate picks
//! one of its backends at *compile* time with `use epoll as sys`; this book
//! wants all three in one binary, to race them, so [`Selector`] is an enum
//! over the three and each method is a `match` that forwards the call.
//!
//! Why an enum and not a `Box<dyn Trait>`: the set is closed (three
//! backends, all known here), the `match` shows all of them on one screen,
//! and there is no trait whose only purpose would be this file. The price,
//! one branch per call, is invisible next to a system call.
//!
//! Not here: what the pool does with events (`slot.rs`, `pool.rs`).

use std::fmt;
use std::io;
use std::os::fd::BorrowedFd;
use std::str::FromStr;
use std::time::Duration;

use crate::event::{Event, Interest, Token};
use crate::{epoll, fd_set, poll};

/// Which system call waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Backend {
    /// `select(2)`: bitmaps, rebuilt every call; descriptors below 1024 only.
    Select,
    /// `poll(2)`: an array, any descriptor, still scanned whole every call.
    Poll,
    /// epoll through mio: registered once, only ready descriptors returned.
    #[default]
    Epoll,
}

impl Backend {
    /// Every backend, oldest first.
    pub const ALL: [Backend; 3] = [Backend::Select, Backend::Poll, Backend::Epoll];

    /// The name used by `--backend` and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Select => "select",
            Backend::Poll => "poll",
            Backend::Epoll => "epoll",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Backend {
    type Err = String;

    fn from_str(s: &str) -> Result<Backend, String> {
        Backend::ALL
            .into_iter()
            .find(|b| b.as_str() == s)
            .ok_or_else(|| format!("expected select, poll or epoll, not '{s}'"))
    }
}

/// The `--backend` flag, for every binary built on this selector (stage 4
/// and stage 5): flatten it into the binary's arguments with
/// `#[command(flatten)]`, so the flag is spelled, defaulted and checked in
/// one place.
///
/// ```
/// use clap::Parser;
/// use select::{Backend, BackendArg};
///
/// #[derive(Parser)]
/// struct Args {
///     #[command(flatten)]
///     selector: BackendArg,
/// }
///
/// let args = Args::try_parse_from(["stage", "--backend", "poll"]).unwrap();
/// assert_eq!(args.selector.backend, Backend::Poll);
/// let args = Args::try_parse_from(["stage"]).unwrap();
/// assert_eq!(args.selector.backend, Backend::Epoll);
/// let error = Args::try_parse_from(["stage", "--backend", "kqueue"]).err().unwrap();
/// assert!(error.to_string().contains("select, poll or epoll"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::Args)]
pub struct BackendArg {
    /// Which system call waits: select, poll or epoll.
    #[arg(long, default_value_t = Backend::Epoll, value_name = "BACKEND")]
    pub backend: Backend,
}

impl BackendArg {
    /// Refuses, before the run, a `select` backend whose connections would
    /// need descriptors at or above `FD_SETSIZE` (1024): the run would
    /// otherwise fail half-way, at the first socket numbered 1024. The
    /// count is the harness's own estimate: each connection's socket, its
    /// server end too when the embedded server runs in this process, and
    /// the spare descriptors every process keeps.
    ///
    /// ```
    /// use select::{Backend, BackendArg};
    /// use testbed::cli::Settings;
    ///
    /// let select = BackendArg { backend: Backend::Select };
    /// let many = Settings { conns: 1100, items: 1100, ..Settings::default() };
    /// assert!(select.check(&many).unwrap_err().contains("FD_SETSIZE"));
    /// let epoll = BackendArg { backend: Backend::Epoll };
    /// assert_eq!(epoll.check(&many), Ok(()));
    /// ```
    pub fn check(&self, settings: &testbed::cli::Settings) -> Result<(), String> {
        use testbed::limits::SPARE_DESCRIPTORS;
        if self.backend != Backend::Select {
            return Ok(());
        }
        let conns = settings.conns.min(settings.items) as u64;
        let per_conn = if settings.server.is_none() { 2 } else { 1 };
        let need = conns * per_conn + SPARE_DESCRIPTORS;
        let room = fd_set::FD_SETSIZE as u64;
        if need <= room {
            return Ok(());
        }
        let fits = (room - SPARE_DESCRIPTORS) / per_conn;
        Err(format!(
            "--backend select: {conns} connections need descriptors up to about {need}, but \
             select(2) watches only descriptors below FD_SETSIZE ({room}): use --conns {fits} \
             or fewer, or --backend poll or --backend epoll"
        ))
    }
}

// ANCHOR: selector
/// Waits on many descriptors at once, with the backend chosen at run time.
///
/// # Trigger mode
///
/// `select` and `poll` are **level-triggered**: a descriptor is reported on
/// every wait for as long as it is ready. epoll (through mio) is
/// **edge-triggered**: it is reported once each time it *becomes* ready.
/// Code that works with both reads and writes until `WouldBlock` after
/// every event, and keeps write interest only while it has something to
/// write (level-triggered write interest on an idle socket would wake every
/// wait).
///
/// # Readiness is only a hint
///
/// An event says an operation is worth *trying*, not that it will succeed
/// or finish: a read may return `WouldBlock` (a spurious wake-up), a few
/// bytes of a line, or several lines; a write may take only part of the
/// buffer. Errors and hang-ups are reported as readable *and* writable, and
/// the next read or write says which error it was.
///
/// # Signals (`EINTR`)
///
/// A signal that interrupts a wait is not an error: every backend waits
/// again for the time left (`retry_interrupted`, in `sys.rs`), so
/// [`Selector::wait`] never returns `Interrupted` and never overshoots its
/// timeout because of a signal.
///
/// # Descriptors
///
/// Register a descriptor once with [`add`](Selector::add) and
/// [`delete`](Selector::delete) it *before* closing it: a closed number is
/// soon reused by the next socket, and a backend that still watches it
/// would report the new socket's events under the old token. `select`
/// refuses descriptors at or above [`fd_set::FD_SETSIZE`].
///
/// [`wait`](Selector::wait) shows the loop, with an example.
pub enum Selector {
    /// `select(2)`.
    Select(fd_set::Poller),
    /// `poll(2)`.
    Poll(poll::Poller),
    /// epoll through mio.
    Epoll(epoll::Poller),
}

impl Selector {
    /// A selector over `backend`.
    pub fn new(backend: Backend) -> io::Result<Selector> {
        Ok(match backend {
            Backend::Select => Selector::Select(fd_set::Poller::new()?),
            Backend::Poll => Selector::Poll(poll::Poller::new()?),
            Backend::Epoll => Selector::Epoll(epoll::Poller::new()?),
        })
    }
    // ANCHOR_END: selector

    /// Which backend this is.
    pub fn backend(&self) -> Backend {
        match self {
            Selector::Select(_) => Backend::Select,
            Selector::Poll(_) => Backend::Poll,
            Selector::Epoll(_) => Backend::Epoll,
        }
    }

    /// Starts watching `fd` for `interest`; events for it carry `token`.
    pub fn add(&mut self, fd: BorrowedFd<'_>, token: Token, interest: Interest) -> io::Result<()> {
        match self {
            Selector::Select(p) => p.add(fd, token, interest),
            Selector::Poll(p) => p.add(fd, token, interest),
            Selector::Epoll(p) => p.add(fd, token, interest),
        }
    }

    /// Changes what a registered `fd` is watched for.
    pub fn modify(
        &mut self,
        fd: BorrowedFd<'_>,
        token: Token,
        interest: Interest,
    ) -> io::Result<()> {
        match self {
            Selector::Select(p) => p.modify(fd, token, interest),
            Selector::Poll(p) => p.modify(fd, token, interest),
            Selector::Epoll(p) => p.modify(fd, token, interest),
        }
    }

    /// Stops watching `fd` (before it is closed).
    pub fn delete(&mut self, fd: BorrowedFd<'_>) -> io::Result<()> {
        match self {
            Selector::Select(p) => p.delete(fd),
            Selector::Poll(p) => p.delete(fd),
            Selector::Epoll(p) => p.delete(fd),
        }
    }

    /// Waits until something registered is ready or `timeout` passes
    /// (`None`: no limit), and fills `events` (cleared first; empty after a
    /// timeout).
    ///
    /// # Example
    ///
    /// The loop every event loop is built on: register what to watch, wait,
    /// handle what is ready, wait again. The same code on each backend:
    ///
    /// ```
    /// use std::io::{self, Read, Write};
    /// use std::net::{TcpListener, TcpStream};
    /// use std::os::fd::AsFd;
    /// use std::time::Duration;
    ///
    /// use select::event::{Interest, Token};
    /// use select::{Backend, Selector};
    ///
    /// for backend in Backend::ALL {
    ///     let listener = TcpListener::bind("127.0.0.1:0")?;
    ///     let mut client = TcpStream::connect(listener.local_addr()?)?;
    ///     let (mut peer, _) = listener.accept()?;
    ///     client.set_nonblocking(true)?;
    ///
    ///     let mut selector = Selector::new(backend)?;
    ///     selector.add(client.as_fd(), Token::new(7), Interest::Read)?;
    ///     peer.write_all(b"200 00000000000000ff\n")?;
    ///
    ///     let mut events = Vec::new();
    ///     let mut received = Vec::new();
    ///     while !received.ends_with(b"\n") {
    ///         selector.wait(&mut events, Some(Duration::from_secs(5)))?;
    ///         assert!(!events.is_empty(), "{backend}: nothing within 5 s");
    ///         for event in &events {
    ///             assert_eq!(event.token, Token::new(7));
    ///             // "Readable" is a hint: read until the socket says
    ///             // WouldBlock (epoll will not repeat itself).
    ///             let mut buf = [0; 64];
    ///             loop {
    ///                 match client.read(&mut buf) {
    ///                     Ok(0) => break,
    ///                     Ok(n) => received.extend_from_slice(&buf[..n]),
    ///                     Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
    ///                     Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
    ///                     Err(e) => return Err(e),
    ///                 }
    ///             }
    ///         }
    ///     }
    ///     assert_eq!(received, b"200 00000000000000ff\n");
    ///     selector.delete(client.as_fd())?; // before `client` closes
    /// }
    /// # Ok::<(), io::Error>(())
    /// ```
    pub fn wait(&mut self, events: &mut Vec<Event>, timeout: Option<Duration>) -> io::Result<()> {
        match self {
            Selector::Select(p) => p.wait(events, timeout),
            Selector::Poll(p) => p.wait(events, timeout),
            Selector::Epoll(p) => p.wait(events, timeout),
        }
    }
}

impl fmt::Debug for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Selector({})", self.backend())
    }
}
