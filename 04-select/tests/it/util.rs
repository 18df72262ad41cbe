//! Shared helpers: scripted fake servers, a bounded pool run, the backends.

use std::cell::RefCell;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use select::pool::{FinishedItem, PoolConfig, SlotPool};
use select::{Backend, Selector};
use testbed::conn::Conn;
use testbed::protocol::{Phases, Reply, Request, ResultHash};
use testbed::workload::Item;

/// No test in this crate should take longer than this; past it, it failed.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// A peer's socket gives up on a silent client after this long, so a
/// scripted server can never outlive a failed test by much.
pub const PEER_TIMEOUT: Duration = Duration::from_secs(10);

/// Every backend, for tests that must pass on all three.
pub fn backends() -> [Backend; 3] {
    Backend::ALL
}

/// A scripted server: accepts `conns` connections and runs `script` on each
/// (on its own thread), with the connection's index.
pub struct FakeServer {
    pub addr: SocketAddr,
    accept: Option<JoinHandle<Vec<io::Result<()>>>>,
}

impl FakeServer {
    pub fn start<F>(conns: usize, script: F) -> FakeServer
    where
        F: Fn(usize, TcpStream) -> io::Result<()> + Send + Sync + Clone + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        let accept = thread::spawn(move || {
            let mut sessions = Vec::new();
            for index in 0..conns {
                let Ok((stream, _)) = listener.accept() else {
                    break;
                };
                let _ = stream.set_read_timeout(Some(PEER_TIMEOUT));
                let _ = stream.set_nodelay(true);
                let script = script.clone();
                sessions.push(thread::spawn(move || script(index, stream)));
            }
            sessions
                .into_iter()
                .map(|s| {
                    s.join()
                        .unwrap_or_else(|_| Err(io::Error::other("script panicked")))
                })
                .collect()
        });
        FakeServer {
            addr,
            accept: Some(accept),
        }
    }

    /// Waits for every session and fails on the first script error.
    #[track_caller]
    pub fn finish(mut self) {
        let results = self
            .accept
            .take()
            .expect("finish is called once")
            .join()
            .expect("the accept thread does not panic");
        for result in results {
            result.expect("the scripted server's session");
        }
    }
}

/// The correct reply to a request line, as the real server would send it.
pub fn correct_reply(request: &Request) -> Reply {
    match request {
        Request::Head(_) => Reply::Ok,
        Request::Get(id, payload) | Request::Body(id, payload) => {
            Reply::Success(ResultHash::of(*id, payload))
        }
        Request::Quit => Reply::BadRequest("quit".into()),
    }
}

/// Reads one request line from a scripted session (blocking).
pub fn read_request(conn: &mut Conn<&TcpStream>) -> io::Result<Option<Request>> {
    match conn.read_line() {
        Ok(Some(line)) => Request::parse(&line)
            .map(Some)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
        Ok(None) => Ok(None),
        Err(e) => Err(io::Error::other(e.to_string())),
    }
}

/// Writes `bytes` one at a time, pausing between them, so each leaves in
/// its own TCP segment.
pub fn trickle(mut stream: &TcpStream, bytes: &[u8], pause: Duration) -> io::Result<()> {
    for byte in bytes {
        stream.write_all(std::slice::from_ref(byte))?;
        thread::sleep(pause);
    }
    Ok(())
}

/// Runs a pool over `items` on a thread and returns every completion, with
/// the time it arrived; panics if the pool has not finished by
/// [`DEADLINE`].
#[track_caller]
pub fn run_pool(
    backend: Backend,
    server: SocketAddr,
    size: usize,
    phases: Phases,
    items: Vec<Item>,
) -> Vec<(FinishedItem, Instant)> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let done = RefCell::new(Vec::new());
        let result = (|| {
            let selector = Selector::new(backend)?;
            let config = PoolConfig {
                server,
                size,
                phases,
            };
            let mut pool = SlotPool::new(selector, config);
            for item in items {
                pool.submit(
                    item,
                    Box::new(|c| done.borrow_mut().push((c, Instant::now()))),
                )?;
            }
            pool.close()
        })();
        let _ = tx.send(result.map(|()| done.take()));
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(Ok(done)) => done,
        Ok(Err(e)) => panic!("{backend}: the pool failed: {e}"),
        Err(_) => panic!("{backend}: the pool did not finish within {DEADLINE:?}"),
    }
}
