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
//! Simplification: there is no idle timeout. An idle connection keeps its
//! thread until the client leaves or the server stops; the stages that
//! need idle timeouts implement them on the client side.
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
//!
//! # Where to read next
//!
//! `server/session.rs` is one connection: the request sequence, the faults,
//! how a connection is closed. `server/stats.rs` is what gets counted.
//! [`crate::forked`] runs this same server in a child process.

mod served;
mod session;
mod stats;

use std::collections::HashMap;
use std::io::{self, PipeReader, PipeWriter};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use socket2::{Domain, Protocol, SockRef, Socket, Type};

use crate::faults::FaultPlan;
use crate::latency::LatencyModel;

pub use served::ServedLine;
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

/// The longest a connection sleeps without checking the stop flag, so that a
/// shutdown never waits for a long simulated latency. Only the last chunk of
/// a service time is shorter, and it ends exactly at the deadline.
pub const SLEEP_CHUNK: Duration = Duration::from_millis(50);

/// The reason sent with `503` to a connection beyond the limit.
pub const BUSY_REASON: &str = "busy";

/// How long the accept thread pauses after an accept error that is not about
/// one connection (out of descriptors, out of memory): the pending
/// connection stays queued, so without a pause `poll` would report it again
/// at once and the thread would spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(10);

/// How long the accept thread waits for a connection before it joins the
/// threads of connections that ended anyway. Until joined, an ended thread
/// keeps its stack mapped; after a burst of thousands of connections, an
/// idle server would otherwise hold all those stacks until the next client.
const REAP_INTERVAL_MS: u16 = 1_000;

/// The longest service time the server simulates; longer draws are cut to
/// it. Nobody waits a day for a reply, and a deadline far in the future
/// could overflow `Instant` arithmetic (which panics).
pub const MAX_SERVICE_TIME: Duration = Duration::from_secs(24 * 60 * 60);

/// How the server behaves: latency model, faults, seed, connection limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerConfig {
    /// The simulated service time of each request line.
    pub latency: LatencyModel,
    /// Which request lines get a fault, and which.
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
        SlowServer::from_listener(bind_listener(addr)?, config)
    }

    /// Starts a server on a listener bound elsewhere: the forked server
    /// binds in the parent, so the parent knows the address, and serves in
    /// the child.
    pub fn from_listener(listener: TcpListener, config: ServerConfig) -> io::Result<SlowServer> {
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
            counters: stats::Counters::default(),
            stopping: AtomicBool::new(false),
            open: Mutex::new(HashMap::new()),
            served: served::ServedLog::default(),
        });
        let acceptor = thread::Builder::new().name("slow-accept".into()).spawn({
            let shared = Arc::clone(&shared);
            move || accept_loop(listener, wake_rx, shared)
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
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(socket.into())
}

/// A connection's number, the key of the open-connection registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct ConnId(u64);

/// What the accept thread and every connection thread share.
#[derive(Debug)]
struct Shared {
    config: ServerConfig,
    counters: stats::Counters,
    /// Set once, by `stop`; connections check it between sleep chunks.
    stopping: AtomicBool,
    /// Every open connection, so `stop` can cut them.
    ///
    /// The registry holds its own `Arc` of each socket: a socket cannot be
    /// closed, and its descriptor number reused by a new connection, while
    /// `stop` might still call `shutdown` on it.
    open: Mutex<HashMap<ConnId, Arc<TcpStream>>>,
    /// When each reply was sent, if asked (`record_served_lines`).
    served: served::ServedLog,
}

impl Shared {
    fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Sleeps until `deadline` in chunks of at most [`SLEEP_CHUNK`];
    /// returns `false` if the server started stopping first.
    fn sleep_until(&self, deadline: Instant) -> bool {
        loop {
            if self.stopping() {
                return false;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return true;
            }
            thread::sleep(left.min(SLEEP_CHUNK));
        }
    }

    /// Registers a connection that is about to get its thread.
    fn opened(&self, id: ConnId, stream: Arc<TcpStream>) {
        self.registry().insert(id, stream);
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
        for stream in self.registry().values() {
            // `NotConnected` when the client already left: nothing to cut.
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, HashMap<ConnId, Arc<TcpStream>>> {
        // Each critical section is one map operation, which leaves the map
        // consistent even if a thread panicked while holding the lock.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The accept thread: admits connections until the waker closes, then cuts
/// and joins every connection thread.
fn accept_loop(listener: TcpListener, wake: PipeReader, shared: Arc<Shared>) {
    let mut threads: HashMap<ConnId, JoinHandle<()>> = HashMap::new();
    // Connection threads report here when they end, so their handles are
    // joined (and their stacks freed) as the server goes, not only at stop.
    let (done_tx, done_rx) = mpsc::channel();
    let mut next_id = 0;
    while !shared.stopping() {
        for id in done_rx.try_iter() {
            if let Some(thread) = threads.remove(&id) {
                join(thread, &shared);
            }
        }
        match wait_for_clients(&listener, &wake) {
            Ok(Wake::Stop) => break,
            Ok(Wake::Clients) => {}
            Ok(Wake::Reap) => continue,
            Err(_) => {
                thread::sleep(ACCEPT_BACKOFF);
                continue;
            }
        }
        while !shared.stopping() {
            match listener.accept() {
                Ok((stream, _peer)) => {
                    let id = ConnId(next_id);
                    next_id += 1;
                    if let Some(thread) = admit(&shared, stream, id, &done_tx) {
                        threads.insert(id, thread);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                // The client gave up before we took it, or a signal: next.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionAborted | io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => {
                    thread::sleep(ACCEPT_BACKOFF);
                    break;
                }
            }
        }
    }
    // Close the port first, so no client connects to a server that will
    // never accept it; then cut the open connections and wait for them.
    drop(listener);
    shared.cut_all();
    for (_, thread) in threads {
        join(thread, &shared);
    }
}

/// Joins a connection thread, counting it if it panicked. It never should;
/// the count lets tests check that, and the `Registration` guard has already
/// cleaned up after it.
fn join(thread: JoinHandle<()>, shared: &Shared) {
    if thread.join().is_err() {
        shared.counters.panicked();
    }
}

/// Why the accept thread woke up.
enum Wake {
    /// Connections are waiting in the backlog.
    Clients,
    /// The waker closed: the server is stopping.
    Stop,
    /// Nothing happened for [`REAP_INTERVAL_MS`]: time to join the threads of
    /// connections that ended.
    Reap,
}

/// Blocks until a connection is waiting, the waker closes, or
/// [`REAP_INTERVAL_MS`] has passed.
fn wait_for_clients(listener: &TcpListener, wake: &PipeReader) -> io::Result<Wake> {
    let mut fds = [
        PollFd::new(listener.as_fd(), PollFlags::POLLIN),
        PollFd::new(wake.as_fd(), PollFlags::POLLIN),
    ];
    loop {
        match poll(&mut fds, PollTimeout::from(REAP_INTERVAL_MS)) {
            Ok(0) => return Ok(Wake::Reap),
            Ok(_) => break,
            // A signal interrupted the wait; nothing happened, wait again.
            Err(Errno::EINTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    // A closed pipe reports POLLHUP, not POLLIN, so any event on the waker
    // counts (`None` means flags nix does not know: still an event).
    if fds[1].any() != Some(false) {
        return Ok(Wake::Stop);
    }
    Ok(Wake::Clients)
}

/// Starts a thread for a new connection, or turns it away; returns the
/// thread to join later.
fn admit(
    shared: &Arc<Shared>,
    stream: TcpStream,
    id: ConnId,
    done: &Sender<ConnId>,
) -> Option<JoinHandle<()>> {
    // Only this thread increments `active`, so the count cannot grow between
    // this check and `opened` below.
    let full = shared
        .config
        .max_conns
        .is_some_and(|max| shared.counters.active() >= max as u64);
    if full {
        session::refuse(&stream);
        shared.counters.refused();
        return None;
    }
    // An accepted socket does not inherit O_NONBLOCK from the listener on
    // Linux, but does on some other Unixes: the connection code blocks.
    // Nagle's algorithm would hold a small reply back until the previous one
    // is acknowledged; replies are small and latency is the whole point.
    let configured = stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_nodelay(true));
    if configured.is_err() {
        // Only possible if the client is already gone.
        return None;
    }
    let stream = Arc::new(stream);
    shared.opened(id, Arc::clone(&stream));
    let registration = Registration {
        shared: Arc::clone(shared),
        id,
        stream: Arc::clone(&stream),
        done: done.clone(),
    };
    let spawned = thread::Builder::new()
        .name(format!("slow-conn-{}", id.0))
        .stack_size(CONN_STACK)
        .spawn(move || session::serve(&registration.stream, &registration.shared));
    match spawned {
        Ok(thread) => {
            shared.counters.accepted();
            Some(thread)
        }
        Err(_) => {
            // Out of threads or memory: say so rather than vanish. (The
            // registration was dropped with the closure: already forgotten.)
            session::refuse(&stream);
            shared.counters.refused();
            None
        }
    }
}

/// A connection's place in the registry, owned by its thread: dropping it
/// forgets the connection and tells the accept thread to join the thread.
///
/// It is a guard, not a last statement of the thread, so that it also runs
/// if the session panics (it never should): otherwise the registry would
/// keep the socket open, and the connection counted, until the server stops.
struct Registration {
    shared: Arc<Shared>,
    id: ConnId,
    stream: Arc<TcpStream>,
    done: Sender<ConnId>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.shared.closed(self.id);
        // The receiver lives until every thread is joined. The socket closes
        // when `self.stream`, the last `Arc`, is dropped right after this,
        // still on this thread: so once the accept thread has joined it, the
        // connection holds no descriptor.
        let _ = self.done.send(self.id);
    }
}
