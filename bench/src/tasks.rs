//! Reference `tokio` and `tokio-ct`: one task per connection on a tokio
//! runtime, the idiomatic async Rust answer.
//!
//! This is what a Rust programmer reaches for instead of climbing the
//! ladder, written the way the tokio tutorial teaches: `--conns` tasks
//! spawned on the runtime, each owning one `tokio::net::TcpStream`, taking
//! the next item from a shared counter, and awaiting its replies. The
//! runtime (epoll underneath) parks the tasks that wait and polls the ones
//! whose sockets are ready.
//!
//! Two flavours, the same code:
//!
//! - `tokio`: the default multi-thread runtime (one worker per core, with
//!   work stealing). What `#[tokio::main]` gives you.
//! - `tokio-ct`: the current-thread runtime, every task on the calling
//!   thread: the fair peer of the ladder's single-threaded loops (04-select,
//!   06-scheduler), with no cross-thread wake-ups to pay for.
//!
//! # One database connection
//!
//! A `rusqlite::Connection` is `Send` but not `Sync`: it can move to another
//! thread, not be used from two at once. The tasks share it behind a
//! `std::sync::Mutex`, locked only for the `INSERT` and never across an
//! `.await`. That is tokio's own advice for short critical sections (its
//! "Shared state" tutorial): an async mutex or a writer task with a channel
//! would add a wake-up per item to protect a few microseconds of work.
//!
//! # The request
//!
//! Async code cannot call 01-sync's blocking `request` (it would block the
//! runtime's thread), so the same conversation is written again with
//! `.await` at each wait: the "function colour" cost of async Rust. It
//! frames replies with the workspace's one [`LineFramer`], like every stage,
//! and fails items with the same kinds (`testbed::outcome::ack` and
//! `answer` say what each reply means). A read timeout, when asked for, bounds each reply with
//! `tokio::time::timeout`.
//!
//! Not handicapped: `TCP_NODELAY` on every socket, connections reused
//! across items, the runtime built once per run (never per item), default
//! runtime settings.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use testbed::framing::{LineError, LineFramer, READ_CHUNK};
use testbed::outcome::{self, ErrorKind, Failure, Outcome};
use testbed::protocol::{Phases, Reply, Request};
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::store::{Lane, Store, StoreError};
use testbed::workload::Item;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::runtime::{Builder, Runtime};
use tokio::task::JoinSet;

/// Which tokio runtime runs the tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// `Builder::new_multi_thread()`: a worker thread per core.
    MultiThread,
    /// `Builder::new_current_thread()`: everything on the calling thread.
    CurrentThread,
}

/// The tokio reference.
#[derive(Debug, Clone, Copy)]
pub struct Tasks {
    /// The runtime flavour.
    pub flavor: Flavor,
}

impl Tasks {
    /// `tokio`: the default multi-thread runtime.
    pub fn multi_thread() -> Tasks {
        Tasks {
            flavor: Flavor::MultiThread,
        }
    }

    /// `tokio-ct`: the current-thread runtime.
    pub fn current_thread() -> Tasks {
        Tasks {
            flavor: Flavor::CurrentThread,
        }
    }

    fn runtime(self) -> io::Result<Runtime> {
        let mut builder = match self.flavor {
            Flavor::MultiThread => Builder::new_multi_thread(),
            Flavor::CurrentThread => Builder::new_current_thread(),
        };
        // What `#[tokio::main]` enables: the I/O driver and the timers.
        builder.enable_all().build()
    }
}

/// What every task shares: the work, the next item to take, the database.
struct Shared {
    items: Vec<Item>,
    next: AtomicUsize,
    store: Mutex<Store>,
    server: SocketAddr,
    phases: Phases,
    read_timeout: Option<Duration>,
}

impl Stage for Tasks {
    fn name(&self) -> &'static str {
        match self.flavor {
            Flavor::MultiThread => "tokio",
            Flavor::CurrentThread => "tokio-ct",
        }
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let conns = scenario.conns.min(scenario.items.len()).max(1);
        // Spawned tasks must own what they use (`'static`), so the work list
        // is copied once into the shared state.
        let shared = Arc::new(Shared {
            items: scenario.items.clone(),
            next: AtomicUsize::new(0),
            store: Mutex::new(scenario.open_store()?),
            server: scenario.server,
            phases: scenario.phases,
            read_timeout: scenario.read_timeout,
        });
        let runtime = self.runtime()?;
        runtime.block_on(async {
            // ANCHOR: spawn
            let mut tasks = JoinSet::new();
            for lane in 0..conns {
                tasks.spawn(connection_task(Lane::of(lane), shared.clone()));
            }
            while let Some(joined) = tasks.join_next().await {
                // A task's own error (the database failed) ends the run;
                // dropping the JoinSet on the way out aborts the others.
                joined.map_err(|e| io::Error::other(format!("a task failed: {e}")))??;
            }
            // ANCHOR_END: spawn
            Ok::<(), StageError>(())
        })?;
        Ok(RunStats::new(conns))
    }
}

// ANCHOR: task
/// One connection's task: take the next item, request it, record it.
async fn connection_task(lane: Lane, shared: Arc<Shared>) -> Result<(), StoreError> {
    let mut conn: Option<AsyncConn> = None;
    loop {
        let index = shared.next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = shared.items.get(index) else {
            return Ok(());
        };
        let started = Instant::now();
        let outcome = connect_and_request(&mut conn, &shared, item).await;
        if matches!(&outcome, Err(f) if f.kind.breaks_connection()) {
            conn = None;
        }
        // Held for one INSERT, never across an `.await`. A poisoned lock
        // means another task panicked mid-INSERT; SQLite's transaction was
        // rolled back, so the connection itself is still sound.
        let mut store = shared.store.lock().unwrap_or_else(PoisonError::into_inner);
        store.record(item.id, lane, started, &outcome)?;
    }
}
// ANCHOR_END: task

async fn connect_and_request(
    conn: &mut Option<AsyncConn>,
    shared: &Shared,
    item: &Item,
) -> Outcome {
    let conn = match conn {
        Some(conn) => conn,
        None => conn.insert(AsyncConn::connect(shared.server, shared.read_timeout).await?),
    };
    request(conn, item, shared.phases).await
}

// ANCHOR: request
/// 01-sync's `request`, with an `.await` at every wait.
async fn request(conn: &mut AsyncConn, item: &Item, phases: Phases) -> Outcome {
    if phases == Phases::Two {
        conn.send(&Request::Head(item.id)).await?;
        outcome::ack(conn.recv().await?)?;
        conn.send(&Request::Body(item.id, item.payload.clone()))
            .await?;
    } else {
        conn.send(&Request::Get(item.id, item.payload.clone()))
            .await?;
    }
    outcome::answer(conn.recv().await?)
}
// ANCHOR_END: request

/// A SLOW/1 connection over a tokio socket: `testbed::conn::Conn`'s async
/// twin.
struct AsyncConn {
    stream: TcpStream,
    framer: LineFramer,
    chunk: Vec<u8>,
    read_timeout: Option<Duration>,
}

impl AsyncConn {
    async fn connect(addr: SocketAddr, read_timeout: Option<Duration>) -> Result<Self, Failure> {
        let io = |e: io::Error| Failure::from_io(&e);
        let stream = TcpStream::connect(addr).await.map_err(io)?;
        stream.set_nodelay(true).map_err(io)?;
        Ok(AsyncConn {
            stream,
            framer: LineFramer::new(),
            chunk: vec![0; READ_CHUNK],
            read_timeout,
        })
    }

    /// Sends one request line in one write (see `Conn::write_line`).
    async fn send(&mut self, request: &Request) -> Result<(), Failure> {
        let line = format!("{request}\n");
        self.stream
            .write_all(line.as_bytes())
            .await
            .map_err(|e| Failure::from_io(&e))
    }

    /// Waits for one reply line, within the read timeout if there is one.
    async fn recv(&mut self) -> Result<Reply, Failure> {
        let line = match self.read_timeout {
            None => self.read_line().await?,
            Some(limit) => tokio::time::timeout(limit, self.read_line())
                .await
                .map_err(|_| {
                    Failure::new(ErrorKind::Timeout, format!("no reply within {limit:?}"))
                })??,
        };
        Reply::parse(&line)
            .map_err(|e| Failure::new(ErrorKind::Protocol, format!("bad reply: {e}")))
    }

    /// Reads until the framer has a whole line.
    async fn read_line(&mut self) -> Result<String, Failure> {
        loop {
            if let Some(line) = self.framer.next_line().map_err(LineError::from)? {
                return Ok(line);
            }
            let n = self
                .stream
                .read(&mut self.chunk)
                .await
                .map_err(|e| Failure::from_io(&e))?;
            if n == 0 {
                return Err(if self.framer.has_partial() {
                    LineError::EofMidLine.into()
                } else {
                    Failure::new(ErrorKind::Closed, "the server closed the connection")
                });
            }
            self.framer.push(&self.chunk[..n]);
        }
    }
}
