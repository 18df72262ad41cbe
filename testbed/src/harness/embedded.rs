//! The server a run talks to: threads in this process, a process of its
//! own (for a stage that forks), or someone else's (`--server`).
//!
//! Only the first two have statistics, and only the forked one can die on
//! its own during the run: [`EmbeddedServer::finish`] says so, and the
//! report makes it a problem, instead of mistaking the dead server for an
//! external one.
//!
//! Not here: the server itself (`crate::server`, `crate::forked`).

use std::net::SocketAddr;

use crate::cli::Settings;
use crate::forked::ForkedServer;
use crate::server::{Board, ServedLine, ServerConfig, ServerStats, SlowServer};
use crate::stage::Stage;

use super::HarnessError;

/// The server a run talks to, however it was started.
pub(super) enum EmbeddedServer {
    Threads(SlowServer),
    Process(ForkedServer),
    External(SocketAddr),
}

/// How the server's part of a run ended.
pub(super) enum ServerEnd {
    /// Stopped by the harness; here are its statistics.
    Stopped(ServerStats),
    /// It ended before the harness stopped it, or could not report.
    Died(String),
    /// Not ours: nothing to stop, nothing known.
    External,
}

impl EmbeddedServer {
    pub(super) fn start(
        stage: &dyn Stage,
        settings: &Settings,
        config: ServerConfig,
    ) -> Result<EmbeddedServer, HarnessError> {
        Ok(match settings.server {
            Some(addr) => EmbeddedServer::External(addr),
            None if stage.forks() => {
                EmbeddedServer::Process(ForkedServer::start(config).map_err(HarnessError::Server)?)
            }
            None => {
                EmbeddedServer::Threads(SlowServer::spawn(config).map_err(HarnessError::Server)?)
            }
        })
    }

    pub(super) fn addr(&self) -> SocketAddr {
        match self {
            EmbeddedServer::Threads(server) => server.addr(),
            EmbeddedServer::Process(server) => server.addr(),
            EmbeddedServer::External(addr) => *addr,
        }
    }

    /// Stops an embedded server and returns its statistics, or how it died.
    /// Asks a server in this process to log when it sends each reply (for
    /// the timeline's two shades).
    pub(super) fn record_served_lines(&self) {
        if let EmbeddedServer::Threads(server) = self {
            server.record_served_lines();
        }
    }

    /// A view of a server in this process, for `--watch`.
    pub(super) fn board(&self) -> Option<Board> {
        match self {
            EmbeddedServer::Threads(server) => Some(server.board()),
            _ => None,
        }
    }

    /// What the server logged (empty unless it runs in this process).
    pub(super) fn served_lines(&self) -> Vec<ServedLine> {
        match self {
            EmbeddedServer::Threads(server) => server.served_lines(),
            _ => Vec::new(),
        }
    }

    pub(super) fn finish(self) -> ServerEnd {
        match self {
            EmbeddedServer::Threads(server) => ServerEnd::Stopped(server.shutdown()),
            EmbeddedServer::Process(server) => match server.finish() {
                Ok(stats) => ServerEnd::Stopped(stats),
                Err(e) => ServerEnd::Died(e.to_string()),
            },
            EmbeddedServer::External(_) => ServerEnd::External,
        }
    }
}
