//! The accept thread: who gets a connection thread, who gets turned away,
//! and the outage window.
//!
//! One thread owns the listening socket. It waits with `poll(2)` for
//! clients, for the waker (the server is stopping), or for the next moment
//! something is due: the outage beginning or ending, or joining the threads
//! of connections that ended. It then takes every queued connection and
//! admits it (a thread of its own), or turns it away with `503`: beyond
//! `max_conns`, when no thread can be started, or when the process is out
//! of descriptors (the spare descriptor, `spare.rs`).
//!
//! # The outage window
//!
//! When the plan has an outage ([`crate::outage`]), the server goes dark at
//! its start: a second socket binds the port (`SO_REUSEPORT`, which the
//! listener was bound with for this, [`super::bind_listener_for`]) and
//! the listener closes, so the port stays ours but nothing listens on it
//! and the kernel answers every connect with a reset (`ECONNREFUSED`); the
//! connections queued and those open are reset. At its end the holding
//! socket starts listening, and the server serves again. A listener bound
//! without `SO_REUSEPORT` cannot be held that way; the server then keeps
//! it, and resets each connection as it accepts it.
//!
//! Not here: what a connection does once admitted (`session.rs`).

use std::collections::HashMap;
use std::io::{self, PipeReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::mpsc::{self, Sender};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use socket2::{Domain, Protocol, Socket, Type};

use super::session;
use super::spare::{Shortage, Spare};
use super::{BUSY_REASON, CONN_STACK, ConnId, LISTEN_BACKLOG, Peer, Shared};

/// How long the accept thread pauses after an accept error that is not about
/// one connection and that the spare descriptor could not help with (out
/// of memory): the pending connection stays queued, so without a pause
/// `poll` would report it again at once and the thread would spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(10);

/// How long the accept thread waits for a connection before it joins the
/// threads of connections that ended anyway. Until joined, an ended thread
/// keeps its stack mapped; after a burst of thousands of connections, an
/// idle server would otherwise hold all those stacks until the next client.
const REAP_INTERVAL: Duration = Duration::from_secs(1);

/// The accept thread: admits connections until the waker closes, then cuts
/// and joins every connection thread.
pub(super) fn accept_loop(listener: TcpListener, wake: PipeReader, shared: Arc<Shared>) {
    let mut threads: HashMap<ConnId, JoinHandle<()>> = HashMap::new();
    // Connection threads report here when they end, so their handles are
    // joined (and their stacks freed) as the server goes, not only at stop.
    let (done_tx, done_rx) = mpsc::channel();
    let mut next_id = 0;
    let mut port = Port::Listening(listener);
    let mut spare = Spare::take();
    while !shared.stopping() {
        for id in done_rx.try_iter() {
            if let Some(thread) = threads.remove(&id) {
                join(thread, &shared);
            }
        }
        port = port.follow_outage(&shared);
        let listener = match &port {
            Port::Listening(listener) | Port::Resetting(listener) => Some(listener),
            Port::Held(_) => None,
        };
        match wait_for_clients(listener, &wake, next_due(&shared)) {
            Ok(Wake::Stop) => break,
            Ok(Wake::Clients) => {}
            Ok(Wake::Due) => continue,
            Err(_) => {
                thread::sleep(ACCEPT_BACKOFF);
                continue;
            }
        }
        let Some(listener) = listener else { continue };
        while !shared.stopping() {
            match listener.accept() {
                Ok((stream, _peer)) if matches!(port, Port::Resetting(_)) => {
                    session::reset(&stream);
                    shared.counters.reset_by_outage();
                }
                Ok((stream, _peer)) => {
                    // A spare lost to another thread takes this number back.
                    let Some(stream) = spare.accepted(stream, &shared.counters) else {
                        continue;
                    };
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
                Err(e) if out_of_descriptors(&e) => {
                    match spare.turn_away(listener, &shared.counters) {
                        Shortage::TurnedAway => {}
                        Shortage::Drained => break,
                        Shortage::Stuck => {
                            thread::sleep(ACCEPT_BACKOFF);
                            break;
                        }
                    }
                }
                Err(_) => {
                    thread::sleep(ACCEPT_BACKOFF);
                    break;
                }
            }
        }
    }
    // Close the port first, so no client connects to a server that will
    // never accept it; then cut the open connections and wait for them.
    drop(port);
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

/// The listening port, up or held down by an outage.
enum Port {
    /// Serving.
    Listening(TcpListener),
    /// In an outage: bound, not listening, so connects are refused.
    Held(Socket),
    /// In an outage, with a listener that cannot be held (no
    /// `SO_REUSEPORT`): every connection is accepted and reset at once.
    Resetting(TcpListener),
}

impl Port {
    /// Goes dark or comes back, as the outage window says for now.
    fn follow_outage(self, shared: &Shared) -> Port {
        let Some(outage) = shared.config.faults.outage() else {
            return self;
        };
        let dark = outage.covers(shared.started.elapsed());
        match self {
            Port::Listening(listener) if dark => {
                shared.reset_all();
                match hold(&listener) {
                    Ok(held) => Port::Held(held),
                    Err(_) => Port::Resetting(listener),
                }
            }
            Port::Held(held) if !dark => match reopen(held) {
                Ok(listener) => Port::Listening(listener),
                // The port is still ours: try again at the next wake-up.
                Err((held, _)) => Port::Held(held),
            },
            Port::Resetting(listener) if !dark => Port::Listening(listener),
            unchanged => unchanged,
        }
    }
}

/// Takes the listener's port with a socket that does not listen, then
/// closes the listener. The queued connections are reset with it.
fn hold(listener: &TcpListener) -> io::Result<Socket> {
    let addr: SocketAddr = listener.local_addr()?;
    let held = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    held.set_reuse_address(true)?;
    held.set_reuse_port(true)?;
    held.bind(&addr.into())?;
    Ok(held)
}

/// Listens again on the held port.
fn reopen(held: Socket) -> Result<TcpListener, (Socket, io::Error)> {
    match held.listen(LISTEN_BACKLOG) {
        Ok(()) => {
            let listener: TcpListener = held.into();
            match listener.set_nonblocking(true) {
                Ok(()) => Ok(listener),
                Err(e) => Err((listener.into(), e)),
            }
        }
        Err(e) => Err((held, e)),
    }
}

/// The next moment the accept thread has something to do without a client:
/// an edge of the outage window, or reaping.
fn next_due(shared: &Shared) -> Duration {
    let elapsed = shared.started.elapsed();
    let edge = shared.config.faults.outage().and_then(|outage| {
        [outage.start, outage.end()]
            .into_iter()
            .find(|&edge| edge > elapsed)
            .map(|edge| edge - elapsed)
    });
    edge.map_or(REAP_INTERVAL, |edge| edge.min(REAP_INTERVAL))
}

/// Why the accept thread woke up.
enum Wake {
    /// Connections are waiting in the backlog.
    Clients,
    /// The waker closed: the server is stopping.
    Stop,
    /// The time given has passed: an outage edge, or time to join the
    /// threads of connections that ended.
    Due,
}

/// Blocks until a connection is waiting on `listener` (if there is one),
/// the waker closes, or `timeout` has passed.
fn wait_for_clients(
    listener: Option<&TcpListener>,
    wake: &PipeReader,
    timeout: Duration,
) -> io::Result<Wake> {
    let mut fds = vec![PollFd::new(wake.as_fd(), PollFlags::POLLIN)];
    if let Some(listener) = listener {
        fds.push(PollFd::new(listener.as_fd(), PollFlags::POLLIN));
    }
    // Rounded up, so the thread never wakes just before an outage edge and
    // goes back to sleep for nothing; clamped to what `poll` takes.
    let millis = timeout.as_micros().div_ceil(1_000);
    let timeout = PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX);
    loop {
        match poll(&mut fds, timeout) {
            Ok(0) => return Ok(Wake::Due),
            Ok(_) => break,
            // A signal interrupted the wait; nothing happened, wait again.
            Err(Errno::EINTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    // A closed pipe reports POLLHUP, not POLLIN, so any event on the waker
    // counts (`None` means flags nix does not know: still an event).
    if fds[0].any() != Some(false) {
        return Ok(Wake::Stop);
    }
    Ok(Wake::Clients)
}

/// Whether an accept failed because this process, or the system, has no
/// descriptor left.
fn out_of_descriptors(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error().map(Errno::from_raw),
        Some(Errno::EMFILE | Errno::ENFILE)
    )
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
        session::refuse(&stream, BUSY_REASON);
        shared.counters.refused();
        return None;
    }
    // An accepted socket does not inherit O_NONBLOCK from the listener on
    // Linux, but does on some other Unixes: the connection code blocks.
    // Nagle's algorithm would hold a small reply back until the previous one
    // is acknowledged; replies are small and latency is the whole point.
    let configured = stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_nodelay(true))
        .and_then(|()| stream.set_read_timeout(shared.idle_timeout));
    if configured.is_err() {
        // Only possible if the client is already gone.
        return None;
    }
    let peer = Arc::new(Peer::new(stream));
    shared.opened(id, Arc::clone(&peer));
    let registration = Registration {
        shared: Arc::clone(shared),
        id,
        peer: Arc::clone(&peer),
        done: done.clone(),
    };
    let spawned = thread::Builder::new()
        .name(format!("slow-conn-{}", id.0))
        .stack_size(CONN_STACK)
        .spawn(move || {
            // Counted here, on the connection's thread, before it reads a
            // request: a client that has its reply then always finds itself
            // counted. (Counted by the accept thread after the spawn, a
            // quick reply could overtake the count.)
            registration.shared.counters.accepted();
            session::serve(&registration.peer, &registration.shared)
        });
    match spawned {
        Ok(thread) => Some(thread),
        Err(_) => {
            // Out of threads or memory: say so rather than vanish. (The
            // registration was dropped with the closure: already forgotten.)
            session::refuse(&peer.stream, BUSY_REASON);
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
    peer: Arc<Peer>,
    done: Sender<ConnId>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.shared.closed(self.id);
        // The receiver lives until every thread is joined. The socket closes
        // when `self.peer`, the last `Arc`, is dropped right after this,
        // still on this thread: so once the accept thread has joined it, the
        // connection holds no descriptor.
        let _ = self.done.send(self.id);
    }
}
