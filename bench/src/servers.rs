//! Slow servers in processes of their own, forked before anything else.
//!
//! To count the client's CPU alone ([`crate::cpu`]), the server must not
//! share the client's process. [`ForkedServer`] gives it one, but may only
//! fork while the process has a single thread (a lock held by another
//! thread at fork time stays locked in the child forever), and the race and
//! the benches start threads soon: tokio's workers, the `threads`
//! reference, criterion's analysis. So every server a program will need is
//! forked up front, first thing in `main`, and handed out later:
//!
//! - the race forks one server per run ([`Servers::take`]), so each run's
//!   figures (peak connections) are its own;
//! - the benches fork one per workload ([`Servers::addr`]) and reuse it for
//!   every sample.
//!
//! Idle servers cost almost nothing: a blocked process and an accept thread
//! that wakes once a second.
//!
//! Not here: the server itself (`testbed::server`).

use std::io;
use std::net::SocketAddr;

use testbed::forked::ForkedServer;
use testbed::server::ServerConfig;

/// Servers forked at start-up, each for one named purpose.
#[derive(Debug, Default)]
pub struct Servers {
    started: Vec<(String, Option<ForkedServer>)>,
}

impl Servers {
    /// Forks one server per `(key, config)`, in order. Must be called while
    /// the process is single-threaded ([`ForkedServer::start`] checks).
    pub fn start(plan: impl IntoIterator<Item = (String, ServerConfig)>) -> io::Result<Servers> {
        // The client's sockets and the servers' are counted separately now,
        // but the client may still want thousands: raise its limit too.
        let _ = testbed::limits::raise_fd_limit();
        let mut started = Vec::new();
        for (key, config) in plan {
            started.push((key, Some(ForkedServer::start(config)?)));
        }
        Ok(Servers { started })
    }

    /// The address of the server for `key` (for servers shared by many
    /// runs).
    pub fn addr(&self, key: &str) -> Option<SocketAddr> {
        self.started
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, server)| server.as_ref().map(ForkedServer::addr))
    }

    /// Hands over the server for `key` (for a server used by one run, which
    /// then calls [`ForkedServer::finish`] for its statistics).
    pub fn take(&mut self, key: &str) -> Option<ForkedServer> {
        self.started
            .iter_mut()
            .find(|(k, _)| k == key)
            .and_then(|(_, server)| server.take())
    }
}
