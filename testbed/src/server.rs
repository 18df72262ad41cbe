//! The simulated slow server: the service every stage is racing against.
//!
//! It plays the "slow external service" of the problem every stage solves:
//! it answers SLOW/1 requests (the book's protocol appendix) after a
//! simulated service time,
//! serves every connection in parallel like a real backend, and injects
//! faults that are decided in advance from `(seed, id, phase)`, so a test or
//! a report knows which items must fail and how.
//!
//! # Design: one thread per connection
//!
//! The server is *not* a lesson in asynchronous I/O; it is the measuring
//! instrument the lessons are judged with. So it uses the plainest model
//! that is faithful enough:
//!
//! - one accept thread, which waits on the listener with `poll(2)`;
//! - one OS thread per connection, with a small stack ([`CONN_STACK`]),
//!   reading lines with blocking calls and simulating the service time with
//!   [`std::thread::sleep`].
//!
//! Threads make the simulation *precise*: `thread::sleep` wakes up tens of
//! microseconds late (about 20 us here, once the connection thread has
//! given up its timer slack), where a 1 ms timer wheel (tokio's) adds about
//! 1 ms to every request, which would blur the very differences the stages
//! are measured on. The statistics record how late every service time
//! really was ([`ServiceStats`]), so a run can prove it. Thousands of
//! threads are cheap enough on Linux: at 128 KiB of stack, 5,000
//! connections reserve 640 MiB of address space but touch only a few pages
//! each.
//!
//! The price is CPU per request: every reply is a thread waking up (two
//! context switches, a write, a read). This 2-core machine serves about
//! 48,000 requests per second end to end (`crowd --latency 0`, release);
//! a load beyond that queues for a CPU, and the statistics show it as
//! overshoot.
//!
//! An idle connection keeps its thread until the client leaves or the
//! server stops, unless the server has an idle timeout
//! ([`SlowServer::bind_with_idle_timeout`], the `slow-server` binary's
//! `--idle-timeout`): the embedded server of a run has none, because the
//! stages that keep idle connections (05-pool) are the ones being measured.
//!
//! # Running out of descriptors
//!
//! Past `RLIMIT_NOFILE`, `accept` fails with `EMFILE` and the connection
//! stays in the backlog: without care, the client waits forever for a
//! server that cannot even tell it no. The accept thread keeps one spare
//! descriptor for that moment: it frees it, accepts, answers `503 out of
//! descriptors`, and takes the number back (the trick libev's
//! documentation describes for `accept`, made safe against the server's
//! other threads with `dup3`). It says so once on stderr per
//! shortage, and counts every connection turned away in
//! [`ServerStats::out_of_descriptors`]. `server/spare.rs` tells the rest:
//! why `accept` fails even with nobody waiting, and why a shortage
//! flickers.
//!
//! # Shutdown
//!
//! [`SlowServer::shutdown`] (and `Drop`) stop the server promptly and join
//! every thread it started, whatever the connections are doing:
//!
//! - the accept thread is woken by closing the write end of a pipe it polls
//!   (the same "closing is the signal" idea as the keep-alive pipe of
//!   [`crate::forked`]);
//! - a connection blocked in `read` (idle, or sitting on a `hang` fault) is
//!   woken by `shutdown(2)` on its socket, which makes the read return 0;
//! - a connection in its service time sleeps in chunks of at most
//!   [`SLEEP_CHUNK`] and checks the stop flag between them.
//! - a connection in `blackhole` does the same until the server stops.
//!
//! # Where to read next
//!
//! `server/accept.rs` is the accept thread: admission, the spare
//! descriptor, the outage window. `server/session.rs` is one connection:
//! the request sequence, the faults, how a connection is closed.
//! `server/stats.rs` is what gets counted. [`crate::forked`] runs this same
//! server in a child process.

mod accept;
mod histogram;
mod served;
mod session;
mod spare;
mod stats;

use std::collections::HashMap;
use std::io::{self, PipeWriter};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, SockRef, Socket, Type};

use crate::faults::FaultPlan;
use crate::latency::LatencyModel;

pub use served::{ServedLine, Serving};
pub use session::{Garbage, TRICKLE_PAUSE, TRICKLE_PIECES};
pub use stats::{PhaseCounts, ServerStats, ServiceStats};

/// The listen backlog: how many finished TCP handshakes the kernel queues
/// before the accept thread takes them. std and mio use 128; when thousands
/// of clients connect at once, the handshakes beyond the queue are dropped
/// and retried by the client a second later, then two, then four, so a
/// benchmark would measure SYN retries instead of the stage. 4096 is this
/// machine's `net.core.somaxconn`, the kernel's cap anyway.
pub const LISTEN_BACKLOG: i32 = 4096;

/// Stack size of a connection thread. A connection needs a few KiB (a 4 KiB
/// read buffer, formatting a reply); 128 KiB leaves room for unoptimised
/// debug builds. The default of 2 MiB would reserve 10 GiB of address space
/// for 5,000 connections.
pub const CONN_STACK: usize = 128 * 1024;

/// The longest a connection sleeps without checking the stop flag and the
/// outage, so that a shutdown never waits for a long simulated latency and
/// an outage resets a connection in its service time within this much.
/// Only the last chunk of a service time is shorter, and it ends exactly at
/// the deadline.
pub const SLEEP_CHUNK: Duration = Duration::from_millis(50);

/// The reason sent with `503` to a connection beyond the limit.
pub const BUSY_REASON: &str = "busy";

/// The reason sent with `503` when the server has no descriptor left.
pub const NO_DESCRIPTORS_REASON: &str = "out of descriptors";

/// The `slow-server` binary's idle timeout when none is given: longer than
/// any pause a client makes between two requests of a run (a pool's idle
/// connection is checked out again within milliseconds), short enough that
/// a thousand forgotten sockets give their descriptors back within a
/// minute. Web servers pick the same order (nginx's `keepalive_timeout` is
/// 75 s).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest service time the server simulates; longer draws are cut to
/// it. Nobody waits a day for a reply, and a deadline far in the future
/// could overflow `Instant` arithmetic (which panics).
pub const MAX_SERVICE_TIME: Duration = Duration::from_secs(24 * 60 * 60);

/// How the server behaves: latency model, faults, seed, connection limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerConfig {
    /// The simulated service time of each request line.
    pub latency: LatencyModel,
    /// Which request lines get a fault, and which; and when the server is
    /// down (the plan's outage window).
    pub faults: FaultPlan,
    /// The seed of every latency and fault draw.
    pub seed: u64,
    /// At most this many connections at once; more get `503 busy`.
    pub max_conns: Option<usize>,
}

impl Default for ServerConfig {
    /// 10 ms fixed latency, no faults, seed 1, no connection limit: the
    /// defaults of the stage binaries.
    fn default() -> ServerConfig {
        ServerConfig {
            latency: LatencyModel::default(),
            faults: FaultPlan::none(),
            seed: 1,
            max_conns: None,
        }
    }
}

/// A running slow server: an accept thread and one thread per connection.
///
/// Dropping it stops the server and joins all its threads, like
/// [`shutdown`](Self::shutdown) without the final statistics.
///
/// # Example
///
/// ```
/// use std::net::TcpStream;
/// use testbed::conn::Conn;
/// use testbed::protocol::{ItemId, Payload, Reply, Request, ResultHash};
/// use testbed::server::{ServerConfig, SlowServer};
///
/// # fn main() -> std::io::Result<()> {
/// let server = SlowServer::spawn(ServerConfig::default())?;
/// let mut conn = Conn::new(TcpStream::connect(server.addr())?);
/// let payload = Payload::new("a").expect("a valid payload");
/// conn.write_line(&Request::Get(ItemId(0), payload.clone()))?;
/// let line = conn.read_line().expect("a reply").expect("not closed");
/// let expected = Reply::Success(ResultHash::of(ItemId(0), &payload));
/// assert_eq!(Reply::parse(&line), Ok(expected));
///
/// let stats = server.shutdown();
/// assert_eq!((stats.accepted, stats.requests.get), (1, 1));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct SlowServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    /// Dropping this wakes the accept thread (it polls the read end).
    waker: Option<PipeWriter>,
    acceptor: Option<JoinHandle<()>>,
}

impl SlowServer {
    /// Starts a server on a free loopback port (`127.0.0.1:0`): the embedded
    /// server of tests and stage binaries.
    pub fn spawn(config: ServerConfig) -> io::Result<SlowServer> {
        SlowServer::bind(SocketAddr::from(([127, 0, 0, 1], 0)), config)
    }

    /// Starts a server listening on `addr`.
    pub fn bind(addr: SocketAddr, config: ServerConfig) -> io::Result<SlowServer> {
        SlowServer::from_listener(bind_listener_for(addr, &config)?, config)
    }

    /// Starts a server listening on `addr` that closes a connection after
    /// `idle` without a request line from it: a long-running server's
    /// defence against clients that connect and forget (see the module
    /// docs). A request in its service time is not idle.
    pub fn bind_with_idle_timeout(
        addr: SocketAddr,
        config: ServerConfig,
        idle: Duration,
    ) -> io::Result<SlowServer> {
        SlowServer::start(bind_listener_for(addr, &config)?, config, Some(idle))
    }

    /// Starts a server on a listener bound elsewhere: the forked server
    /// binds in the parent, so the parent knows the address, and serves in
    /// the child. Bind it with [`bind_listener_for`] when the plan has an
    /// outage.
    pub fn from_listener(listener: TcpListener, config: ServerConfig) -> io::Result<SlowServer> {
        SlowServer::start(listener, config, None)
    }

    fn start(
        listener: TcpListener,
        config: ServerConfig,
        idle_timeout: Option<Duration>,
    ) -> io::Result<SlowServer> {
        // Linux lets `listen` be called again on a listening socket, and
        // takes the new backlog: a listener from `TcpListener::bind` (128)
        // gets ours too.
        SockRef::from(&listener).listen(LISTEN_BACKLOG)?;
        // The accept thread takes every queued connection after each poll,
        // until the kernel says "would block".
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let (wake_rx, waker) = io::pipe()?;
        let shared = Arc::new(Shared {
            config,
            idle_timeout,
            started: Instant::now(),
            counters: stats::Counters::default(),
            stopping: AtomicBool::new(false),
            open: Mutex::new(HashMap::new()),
            served: served::ServedLog::default(),
        });
        let acceptor = thread::Builder::new().name("slow-accept".into()).spawn({
            let shared = Arc::clone(&shared);
            move || accept::accept_loop(listener, wake_rx, shared)
        })?;
        Ok(SlowServer {
            addr,
            shared,
            waker: Some(waker),
            acceptor: Some(acceptor),
        })
    }

    /// The address clients connect to.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The configuration the server runs with.
    pub fn config(&self) -> &ServerConfig {
        &self.shared.config
    }

    /// The statistics so far (see [`ServerStats`] on how exact they are).
    pub fn stats(&self) -> ServerStats {
        self.shared.counters.snapshot()
    }

    /// From now on, remembers when each request line's service time
    /// started and ended (see [`served_lines`](Self::served_lines)); off by
    /// default.
    pub fn record_served_lines(&self) {
        self.shared.served.start();
    }

    /// Every request line served since
    /// [`record_served_lines`](Self::record_served_lines), with when its
    /// service time started and ended.
    pub fn served_lines(&self) -> Vec<ServedLine> {
        self.shared.served.snapshot()
    }

    /// A handle another thread can read while the server runs: what each
    /// open connection is doing, from now on, and the statistics so far.
    /// The live view (`--watch`) reads it.
    pub fn board(&self) -> Board {
        self.shared.served.start_board();
        Board {
            shared: Arc::clone(&self.shared),
        }
    }

    /// Stops the server, joins every thread, and returns the final
    /// statistics. Requests in their service time are abandoned unanswered.
    pub fn shutdown(mut self) -> ServerStats {
        self.stop();
        self.shared.counters.snapshot()
    }

    /// Stops accepting, cuts every connection and joins every thread.
    /// Idempotent, so `shutdown` and then `Drop` can both call it.
    fn stop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        drop(self.waker.take());
        if let Some(acceptor) = self.acceptor.take() {
            // The accept thread does not panic on any input; if it did, the
            // panic message is already on stderr and there is nothing more
            // to do about it while stopping.
            let _ = acceptor.join();
        }
    }
}

impl Drop for SlowServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Binds a TCP listener on `addr` with the server's backlog
/// ([`LISTEN_BACKLOG`]) and `SO_REUSEADDR`, so a server restarted on a fixed
/// port does not fail while its old connections sit in `TIME_WAIT`.
pub fn bind_listener(addr: SocketAddr) -> io::Result<TcpListener> {
    bind_socket(addr, false)
}

/// [`bind_listener`] for a server with this configuration: when its plan
/// has an outage, the listener also gets `SO_REUSEPORT`, so that during the
/// outage a second socket can hold the port, bound but not listening
/// (connects are refused, and no other program can take the port), and
/// listen again when it ends. Without an outage it is left out: two
/// servers started on one port by mistake should fail, not share it.
pub fn bind_listener_for(addr: SocketAddr, config: &ServerConfig) -> io::Result<TcpListener> {
    bind_socket(addr, config.faults.outage().is_some())
}

fn bind_socket(addr: SocketAddr, reuse_port: bool) -> io::Result<TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    if reuse_port {
        socket.set_reuse_port(true)?;
    }
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(socket.into())
}

/// A running server seen from another thread (see [`SlowServer::board`]).
#[derive(Debug, Clone)]
pub struct Board {
    shared: Arc<Shared>,
}

impl Board {
    /// What each open connection is doing, by the client's port.
    pub fn connections(&self) -> Vec<Serving> {
        self.shared.served.now_serving()
    }

    /// The statistics so far.
    pub fn stats(&self) -> ServerStats {
        self.shared.counters.snapshot()
    }
}

/// A connection's number, the key of the open-connection registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct ConnId(u64);

/// One open connection, as its thread and the accept thread share it.
#[derive(Debug)]
struct Peer {
    stream: TcpStream,
    /// Set by the accept thread when an outage begins: the connection's
    /// thread then resets it instead of closing it.
    outage: AtomicBool,
}

impl Peer {
    fn new(stream: TcpStream) -> Peer {
        Peer {
            stream,
            outage: AtomicBool::new(false),
        }
    }

    fn hit_by_outage(&self) -> bool {
        self.outage.load(Ordering::SeqCst)
    }
}

/// What the accept thread and every connection thread share.
#[derive(Debug)]
struct Shared {
    config: ServerConfig,
    /// Close a connection after this long without a request line.
    idle_timeout: Option<Duration>,
    /// The origin of the outage window.
    started: Instant,
    counters: stats::Counters,
    /// Set once, by `stop`; connections check it between sleep chunks.
    stopping: AtomicBool,
    /// Every open connection, so `stop` and an outage can cut them.
    ///
    /// The registry holds its own `Arc` of each socket: a socket cannot be
    /// closed, and its descriptor number reused by a new connection, while
    /// `stop` might still call `shutdown` on it.
    open: Mutex<HashMap<ConnId, Arc<Peer>>>,
    /// When each reply was sent, if asked (`record_served_lines`), and
    /// what each connection is doing, if asked (`board`).
    served: served::ServedLog,
}

impl Shared {
    fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Registers a connection that is about to get its thread.
    fn opened(&self, id: ConnId, peer: Arc<Peer>) {
        self.registry().insert(id, peer);
        self.counters.opened();
    }

    /// Forgets a connection whose thread is done (or never started).
    fn closed(&self, id: ConnId) {
        self.registry().remove(&id);
        self.counters.closed();
    }

    /// Cuts every open connection: a thread blocked reading its socket gets
    /// end-of-stream, a thread blocked writing gets an error.
    fn cut_all(&self) {
        for peer in self.registry().values() {
            // `NotConnected` when the client already left: nothing to cut.
            let _ = peer.stream.shutdown(Shutdown::Both);
        }
    }

    /// An outage begins: every open connection is to be reset. Each thread
    /// does it itself (only the owner of a socket can close it); shutting
    /// the read side wakes a thread blocked reading, and sends the client
    /// nothing, so what the client gets is the reset and only the reset.
    fn reset_all(&self) {
        for peer in self.registry().values() {
            peer.outage.store(true, Ordering::SeqCst);
            let _ = peer.stream.shutdown(Shutdown::Read);
        }
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, HashMap<ConnId, Arc<Peer>>> {
        // Each critical section is one map operation, which leaves the map
        // consistent even if a thread panicked while holding the lock.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
