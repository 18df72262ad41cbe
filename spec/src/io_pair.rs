//! The scenario's connection: a loopback TCP pair. The client end goes to
//! the runtime under test; the peer end stays a plain blocking socket that
//! the script writes to, closes or resets (a few bytes never block).

use std::io::{self, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// The peer's end.
#[derive(Debug)]
pub struct Peer(TcpStream);

impl Peer {
    /// Writes `bytes`; a peer that cannot write records nothing (the
    /// reader's trace will say what it saw).
    pub fn write(&mut self, bytes: &str) {
        let _ = self.0.write_all(bytes.as_bytes());
    }

    /// Closes with a reset: `SO_LINGER` of zero makes `close` send RST
    /// instead of FIN.
    pub fn reset(self) {
        let _ = socket2::SockRef::from(&self.0).set_linger(Some(Duration::ZERO));
    }
}

/// A connected client socket and its peer.
///
/// # Errors
///
/// Binding, connecting or accepting on loopback failed.
pub fn pair() -> io::Result<(TcpStream, Peer)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let client = TcpStream::connect(listener.local_addr()?)?;
    let (peer, _) = listener.accept()?;
    peer.set_nodelay(true)?;
    Ok((client, Peer(peer)))
}

/// The trace's words for a line read: `got <line>`, `eof`, `reset`.
pub fn describe(read: io::Result<usize>, line: &str) -> String {
    match read {
        Ok(0) => "eof".to_owned(),
        Ok(_) => format!("got {}", line.trim_end()),
        Err(e) if e.kind() == io::ErrorKind::ConnectionReset => "reset".to_owned(),
        Err(e) => format!("error: {e}"),
    }
}
