//! What this process's connections to the server are doing, as the kernel
//! sees them: how many there are, how many wait for a reply, since when.
//!
//! A stage does not say what it is waiting on, and the watchdog does not
//! ask it (that would be one more thing every stage must implement). The
//! kernel knows: `/proc/net/tcp` lists every TCP socket with its peer and
//! state, `/proc/self/fd` says which of them are this process's, and
//! `getsockopt(TCP_INFO)` on one of them says how many data segments went
//! out and came in, and how long ago data last went out and came in.
//!
//! A connection is waiting for a reply when it sent more segments than it
//! received: a SLOW/1 request and its reply are a line each, and every
//! stage writes a line in one go, with Nagle's algorithm off, so each is
//! one segment. The counts are exact where the times are not (the kernel
//! keeps those in jiffies, 1 to 10 ms, so a request and its quick reply
//! often look simultaneous). A trickled reply arrives in several segments
//! and leaves the counts uneven for good; so a connection that sent
//! strictly after it last received counts as waiting too.
//!
//! Linux only, and best effort: the stage's threads open and close sockets
//! while this reads, so a descriptor may be gone, or reused by another
//! socket, between the listing and the question. The answer is for a
//! message to a person, never for a decision.
//!
//! Not here: deciding when to ask (`watchdog.rs`).

use std::collections::HashMap;
use std::fs;
use std::mem::{MaybeUninit, size_of};
use std::net::{IpAddr, SocketAddr};
use std::os::fd::RawFd;
use std::time::Duration;

/// Where Linux lists this process's descriptors.
const FD_DIR: &str = "/proc/self/fd";

/// `/proc/net/tcp`'s states, in its own hexadecimal words.
const ESTABLISHED: &str = "01";
const SYN_SENT: &str = "02";

/// This process's connections to one server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Connections {
    /// Established connections.
    pub open: usize,
    /// Connects still in progress.
    pub connecting: usize,
    /// Established connections that sent after they last received.
    pub waiting: usize,
    /// How long the longest-waiting one has waited, since it last sent.
    pub oldest: Option<Duration>,
}

/// This process's connections to `server`; `None` where `/proc` cannot
/// tell (not Linux, or no permission).
pub fn connections_to(server: SocketAddr) -> Option<Connections> {
    let ours = socket_descriptors()?;
    let table = match server.ip() {
        IpAddr::V4(_) => "/proc/net/tcp",
        IpAddr::V6(_) => "/proc/net/tcp6",
    };
    let listing = fs::read_to_string(table).ok()?;
    let peer = proc_address(server);
    let mut found = Connections::default();
    for line in listing.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // sl local rem st queues timer retransmits uid timeout inode ...
        let (Some(rem), Some(state), Some(inode)) = (fields.get(2), fields.get(3), fields.get(9))
        else {
            continue;
        };
        let Some(&fd) = inode.parse().ok().and_then(|inode: u64| ours.get(&inode)) else {
            continue;
        };
        if !rem.eq_ignore_ascii_case(&peer) {
            continue;
        }
        match *state {
            SYN_SENT => found.connecting += 1,
            ESTABLISHED => {
                found.open += 1;
                if let Some(since) = waiting_since(fd) {
                    found.waiting += 1;
                    found.oldest = found.oldest.max(Some(since));
                }
            }
            _ => {}
        }
    }
    Some(found)
}

/// Socket inode to descriptor, for this process.
fn socket_descriptors() -> Option<HashMap<u64, RawFd>> {
    let mut sockets = HashMap::new();
    for entry in fs::read_dir(FD_DIR).ok()?.flatten() {
        let Some(fd) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        // "socket:[12345]" for a socket; anything else is not one.
        let Ok(target) = fs::read_link(entry.path()) else {
            continue;
        };
        let inode = target
            .to_str()
            .and_then(|t| t.strip_prefix("socket:["))
            .and_then(|t| t.strip_suffix(']'))
            .and_then(|t| t.parse().ok());
        if let Some(inode) = inode {
            sockets.insert(inode, fd);
        }
    }
    Some(sockets)
}

/// An address as `/proc/net/tcp` writes it: the address as native-endian
/// 32-bit words in hexadecimal, a colon, the port in hexadecimal.
fn proc_address(addr: SocketAddr) -> String {
    let words: Vec<[u8; 4]> = match addr.ip() {
        IpAddr::V4(ip) => vec![ip.octets()],
        IpAddr::V6(ip) => ip
            .octets()
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect(),
    };
    let hex: String = words
        .into_iter()
        .map(|w| format!("{:08X}", u32::from_ne_bytes(w)))
        .collect();
    format!("{hex}:{:04X}", addr.port())
}

/// How long ago the connection on `fd` last sent, if it waits for a reply
/// (see the module docs).
fn waiting_since(fd: RawFd) -> Option<Duration> {
    let info = tcp_info(fd)?;
    let sent = info.tcpi_data_segs_out > 0;
    let unanswered = info.tcpi_data_segs_out > info.tcpi_data_segs_in;
    let since_reply = info.tcpi_last_data_sent < info.tcpi_last_data_recv;
    (sent && (unanswered || since_reply))
        .then(|| Duration::from_millis(u64::from(info.tcpi_last_data_sent)))
}

/// The kernel's `TCP_INFO` for the socket on `fd`. std and the crates this
/// workspace uses do not wrap it.
fn tcp_info(fd: RawFd) -> Option<libc::tcp_info> {
    let mut info = MaybeUninit::<libc::tcp_info>::zeroed();
    let mut len = libc::socklen_t::try_from(size_of::<libc::tcp_info>()).ok()?;
    // SAFETY: `getsockopt` writes at most `len` bytes into the buffer it is
    // given, and `info` is a buffer of exactly `len` bytes that lives
    // across the call. The descriptor may have been closed, or reused, by
    // another thread since it was listed: then the call fails (`EBADF`,
    // `ENOTSOCK`, `ENOPROTOOPT`) or describes another socket, both of
    // which only make the message less accurate, never memory unsafe.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            info.as_mut_ptr().cast(),
            &mut len,
        )
    };
    // SAFETY: `tcp_info` is plain integers, for which all zeroes is a
    // valid value, and the kernel overwrote a prefix of it with valid
    // values: every byte is initialised either way.
    (rc == 0).then(|| unsafe { info.assume_init() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn addresses_are_written_as_the_kernel_writes_them() {
        let addr: SocketAddr = ([127, 0, 0, 1], 8080).into();
        let expected = if cfg!(target_endian = "little") {
            "0100007F:1F90"
        } else {
            "7F000001:1F90"
        };
        assert_eq!(proc_address(addr), expected);
    }

    #[test]
    fn a_connection_that_sent_and_got_nothing_is_waiting() -> std::io::Result<()> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let server = listener.local_addr()?;
        let mut client = TcpStream::connect(server)?;
        let (mut accepted, _) = listener.accept()?;
        // Nothing sent yet: open, not waiting.
        let idle = connections_to(server).expect("Linux has /proc");
        assert_eq!((idle.open, idle.waiting), (1, 0));
        client.write_all(b"GET 1 a\n")?;
        let waiting = connections_to(server).expect("Linux has /proc");
        assert_eq!((waiting.open, waiting.waiting), (1, 1));
        assert!(waiting.oldest.is_some());
        // Answered, however soon: not waiting any more. (The server's own
        // end is not ours to count: its peer is the client's port, not the
        // server's.)
        accepted.write_all(b"200 0\n")?;
        let mut reply = [0u8; 6];
        std::io::Read::read_exact(&mut client, &mut reply)?;
        let answered = connections_to(server).expect("Linux has /proc");
        assert_eq!((answered.open, answered.waiting), (1, 0));
        // The next request, at once: waiting again.
        client.write_all(b"GET 2 b\n")?;
        let again = connections_to(server).expect("Linux has /proc");
        assert_eq!((again.open, again.waiting), (1, 1));
        Ok(())
    }
}
