//! The forked server, tested from a binary without the test harness.
//!
//! `harness = false` (see Cargo.toml): libtest runs each test on a thread
//! of its own, and `ForkedServer` rightly refuses to fork a multi-threaded
//! process. Here `main` is the only thread until every server is forked;
//! only then does a watchdog thread start, so that a deadlock fails the test
//! instead of hanging it. The refusal itself is tested inside the harness,
//! in `tests/it/forked.rs`.

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::process::ExitCode;
use std::thread;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::waitpid;
use nix::unistd::Pid;

use testbed::conn::Conn;
use testbed::forked::{ForkedServer, thread_count};
use testbed::protocol::{ItemId, Payload, ResultHash};
use testbed::server::ServerConfig;

/// The whole test must finish well within this; if it does not, something
/// deadlocked (a child waiting for an end-of-file that never comes).
const WATCHDOG: Duration = Duration::from_secs(30);

/// Timeout on every client socket.
const IO_TIMEOUT: Duration = Duration::from_secs(5);

fn main() -> ExitCode {
    match run() {
        Ok(()) => {
            println!("forked server: ok");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("forked server: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> io::Result<()> {
    assert_eq!(thread_count()?, 1, "main must start single-threaded");
    let config = ServerConfig {
        latency: "2ms".parse().expect("valid latency"),
        ..ServerConfig::default()
    };
    // Three children; each later one inherits the earlier ones' pipes at
    // fork time, and must close them or the earlier ones never stop.
    let first = ForkedServer::start(config)?;
    let second = ForkedServer::start(config)?;
    let killed = ForkedServer::start(config)?;
    assert_eq!(thread_count()?, 1, "forking must not start threads here");
    let pids = [first.pid(), second.pid(), killed.pid()];
    assert!(!pids.contains(&std::process::id()));
    assert!(pids[0] != pids[1] && pids[1] != pids[2] && pids[0] != pids[2]);

    // From here on threads are fine: no more forks.
    thread::spawn(|| {
        thread::sleep(WATCHDOG);
        eprintln!("forked server: FAILED: still running after {WATCHDOG:?}");
        std::process::exit(1);
    });

    // Both servers answer, each in its own process.
    let mut client = connect(first.addr())?;
    exchange(&mut client, "GET 0 a", "200 4e5d25181d44678a")?;
    exchange(&mut client, "HEAD 42", "OK")?;
    exchange(&mut client, "BODY 42 hello", "200 853456910a36ffc9")?;
    drop(client);
    let mut other = connect(second.addr())?;
    let payload = Payload::new("other").expect("valid payload");
    let expected = format!("200 {}", ResultHash::of(ItemId(7), &payload));
    exchange(&mut other, "GET 7 other", &expected)?;

    // The first server stops even though the second child was forked after
    // it (and so inherited its keep-alive pipe), and reports its statistics.
    let first_addr = first.addr();
    let stats = first.finish()?;
    assert_eq!((stats.accepted, stats.active, stats.peak_conns), (1, 0, 1));
    let requests = stats.requests;
    assert_eq!((requests.get, requests.head, requests.body), (1, 1, 1));
    assert_eq!(stats.service.count, 3);
    let mean = stats.mean_service_time().expect("requests were served");
    assert!(mean >= Duration::from_millis(2), "{mean:?}");
    let refused = TcpStream::connect(first_addr).map(drop);
    assert_eq!(
        refused.map_err(|e| e.kind()),
        Err(io::ErrorKind::ConnectionRefused),
        "the port closes with the child"
    );

    // A still-open client does not keep the second server from stopping on
    // drop, and drop reaps the child: nothing is left to wait for.
    let second_pid = pid(second.pid());
    drop(second);
    let closed = other.read_line().map_err(io::Error::other)?;
    assert_eq!(closed, None, "the server closed the connection");
    assert_eq!(waitpid(second_pid, None), Err(Errno::ECHILD));

    // A child that dies without reporting is an error, not a hang.
    kill(pid(killed.pid()), Signal::SIGKILL)?;
    let error = killed.finish().expect_err("a killed child sends no stats");
    assert!(error.to_string().contains("SIGKILL"), "{error}");
    Ok(())
}

fn pid(raw: u32) -> Pid {
    Pid::from_raw(i32::try_from(raw).expect("pids fit in an i32"))
}

fn connect(addr: SocketAddr) -> io::Result<Conn<TcpStream>> {
    let stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    Ok(Conn::new(stream))
}

/// Sends one line and checks the reply line.
fn exchange(conn: &mut Conn<TcpStream>, request: &str, reply: &str) -> io::Result<()> {
    conn.write_line(&request)?;
    let line = conn.read_line().map_err(io::Error::other)?;
    assert_eq!(line.as_deref(), Some(reply), "reply to {request:?}");
    Ok(())
}
