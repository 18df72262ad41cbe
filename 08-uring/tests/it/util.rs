//! Helpers: a deadline for anything that could hang, and a scripted peer.

use std::io::{self, BufRead, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use testbed::protocol::{Reply, Request, ResultHash};
use testbed::testing::within;

/// How long a test may wait for anything before it calls it a hang.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// Runs `work` within [`DEADLINE`] (see [`within`]).
#[track_caller]
pub fn bounded<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    within(DEADLINE, work)
}

/// A peer on loopback that runs `session` on each connection it accepts,
/// with the connection's number (0 for the first); sessions end when their
/// client goes, and the peer with the test.
pub fn peer<F>(session: F) -> SocketAddr
where
    F: Fn(usize, TcpStream) -> io::Result<()> + Send + Sync + Copy + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let addr = listener.local_addr().expect("a bound listener's address");
    thread::spawn(move || {
        for (index, stream) in listener.incoming().enumerate() {
            let Ok(stream) = stream else { break };
            let _ = stream.set_read_timeout(Some(DEADLINE));
            let _ = stream.set_nodelay(true);
            thread::spawn(move || session(index, stream));
        }
    });
    addr
}

/// The requests a peer reads from `stream`, one line each, until the
/// client closes.
pub fn requests(stream: &TcpStream) -> impl Iterator<Item = Request> + '_ {
    BufReader::new(stream)
        .lines()
        .map_while(Result::ok)
        .map_while(|line| Request::parse(&line).ok())
}

/// The reply a correct server gives `request`, with its newline.
pub fn answer(request: &Request) -> String {
    let reply = match request {
        Request::Head(_) => Reply::Ok,
        Request::Get(id, payload) | Request::Body(id, payload) => {
            Reply::Success(ResultHash::of(*id, payload))
        }
        Request::Quit => Reply::BadRequest("quit".into()),
    };
    format!("{reply}\n")
}
