//! Helpers shared by the integration tests: servers with a given
//! configuration, a raw line client, and assertion helpers that report the
//! caller's line (`#[track_caller]`).
//!
//! Every socket gets a timeout ([`IO_TIMEOUT`]), so a server that fails to
//! answer fails the test instead of hanging it.

use std::io::{self, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use testbed::conn::Conn;
use testbed::framing::LineError;
use testbed::protocol::{ItemId, Payload, ResultHash};
use testbed::server::{ServerConfig, SlowServer};

/// The longest any test waits for one reply or one condition. Generous: a
/// slow CI machine must not fail a correct server, and a broken one still
/// fails in seconds.
pub const IO_TIMEOUT: Duration = Duration::from_secs(5);

/// A server configuration from the same specs the command line takes.
#[track_caller]
pub fn config(latency: &str, faults: &str, seed: u64) -> ServerConfig {
    ServerConfig {
        latency: latency.parse().expect("test latency specs are valid"),
        faults: faults.parse().expect("test fault specs are valid"),
        seed,
        max_conns: None,
    }
}

/// An embedded server with this latency and no faults.
pub fn server(latency: &str) -> io::Result<SlowServer> {
    SlowServer::spawn(config(latency, "none", 1))
}

/// A client that sends raw lines, including the ones SLOW/1 forbids.
pub struct Client {
    conn: Conn<TcpStream>,
}

impl Client {
    /// Connects, with [`IO_TIMEOUT`] on reads and writes.
    pub fn connect(addr: SocketAddr) -> io::Result<Client> {
        let stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(IO_TIMEOUT))?;
        stream.set_write_timeout(Some(IO_TIMEOUT))?;
        stream.set_nodelay(true)?;
        Ok(Client {
            conn: Conn::new(stream),
        })
    }

    /// Sends `line` and its `\n`.
    pub fn send(&mut self, line: &str) -> io::Result<()> {
        self.conn.write_line(&line)
    }

    /// Sends bytes as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.conn.get_mut().write_all(bytes)
    }

    /// The next line; `Ok(None)` when the server closed.
    pub fn read_line(&mut self) -> Result<Option<String>, LineError> {
        self.conn.read_line()
    }

    /// The socket, for options and raw reads.
    pub fn stream(&self) -> &TcpStream {
        self.conn.get_ref()
    }
}

/// The `200` line the server must answer for `id` and `payload`.
#[track_caller]
pub fn success(id: u64, payload: &str) -> String {
    let payload = Payload::new(payload).expect("test payloads are valid");
    format!("200 {}", ResultHash::of(ItemId(id), &payload))
}

/// Reads one line and checks it.
#[track_caller]
pub fn expect_line(client: &mut Client, expected: &str) {
    match client.read_line() {
        Ok(Some(line)) => assert_eq!(line, expected),
        other => panic!("expected {expected:?}, got {other:?}"),
    }
}

/// Checks that the server closed the connection, with nothing more to say.
#[track_caller]
pub fn expect_closed(client: &mut Client) {
    match client.read_line() {
        Ok(None) => {}
        other => panic!("expected the server to close, got {other:?}"),
    }
}

/// Checks for `400 <reason>` with `reason` in it, then a close.
#[track_caller]
pub fn expect_bad_request(client: &mut Client, reason: &str) {
    match client.read_line() {
        Ok(Some(line)) => assert!(
            line.starts_with("400 ") && line.contains(reason),
            "expected a 400 mentioning {reason:?}, got {line:?}"
        ),
        other => panic!("expected a 400 mentioning {reason:?}, got {other:?}"),
    }
    expect_closed(client);
}

/// Polls `condition` until it holds; fails after [`IO_TIMEOUT`]. For what
/// the server does *after* the client could see it (counting a close).
#[track_caller]
pub fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + IO_TIMEOUT;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}
