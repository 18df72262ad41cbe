//! Shared helpers: a bounded run on a thread, servers, a pool driven the
//! way the stage drives it.

use std::net::{SocketAddr, TcpListener};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use pool::{Backend, CheckoutPool, Config, FinishedCall, Selector};
use testbed::server::{ServerConfig, SlowServer};
use testbed::workload::Item;

/// No test in this crate should take longer than this; past it, it failed.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// One millisecond, for readable durations.
pub const MS: Duration = Duration::from_millis(1);

/// Runs `work` on its own thread (a pool is not `Send`, so it is built
/// there) and returns its result; panics if it has not returned within
/// [`DEADLINE`], so a pool that hangs fails the test instead of hanging it.
#[track_caller]
pub fn bounded<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(work());
    });
    rx.recv_timeout(DEADLINE)
        .unwrap_or_else(|_| panic!("the pool did not finish within {DEADLINE:?}"))
}

/// An embedded slow server with this latency and these faults.
pub fn server(latency: &str, faults: &str, seed: u64) -> SlowServer {
    SlowServer::spawn(server_config(latency, faults, seed)).expect("the embedded server starts")
}

/// The configuration of such a server.
pub fn server_config(latency: &str, faults: &str, seed: u64) -> ServerConfig {
    ServerConfig {
        latency: latency.parse().expect("a latency spec"),
        faults: faults.parse().expect("a fault spec"),
        seed,
        max_conns: None,
    }
}

/// A loopback address with nothing listening (a port the kernel just
/// handed out and that was closed again).
pub fn vacant_addr() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    listener
        .local_addr()
        .expect("a bound listener has an address")
}

/// A pool of `size` connections to `server` on `backend`, with `tune`
/// applied to the default config.
pub fn new_pool(
    backend: Backend,
    server: SocketAddr,
    size: usize,
    tune: impl FnOnce(&mut Config),
) -> CheckoutPool {
    let mut config = Config::new(server, size);
    tune(&mut config);
    CheckoutPool::new(Selector::new(backend).expect("a selector"), config).expect("a valid config")
}

/// Sends `items` as the stage does (one checkout per item, at most `size`
/// queued) and returns every completion.
pub fn run_items(pool: &mut CheckoutPool, items: Vec<Item>) -> Vec<FinishedCall> {
    let size = pool.config().size;
    let mut items = items.into_iter().peekable();
    let mut done = Vec::new();
    while items.peek().is_some() || pool.outstanding() > 0 {
        while pool.waiting() < size
            && let Some(item) = items.next()
        {
            let checkout = pool.checkout().expect("checkout");
            pool.call(&checkout, item).expect("call");
        }
        pool.turn(&mut done).expect("turn");
    }
    done
}
