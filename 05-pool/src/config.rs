//! The pool's knobs: each one a limit, and the failure it prevents.
//!
//! Stage 4's pool has three settings (server, size, phases) and trusts the
//! server for everything else. Each knob below exists because of one way a
//! real server or network lets a client down; its doc says which. The
//! names follow the Rust pools a reader will meet next (r2d2, deadpool,
//! bb8: `max_size`, `min_idle`, `idle_timeout`, `connection_timeout`) and
//! AnyEvent::Task, the source of the checkout model (`max_workers`,
//! `min_workers`, `max_checkouts`, `timeout`, `dont_refork_after_error`).
//!
//! Not here: the mechanism that enforces them ([`crate::CheckoutPool`]).

use std::net::SocketAddr;
use std::time::Duration;

pub use testbed::stage::DEFAULT_CONNECT_TIMEOUT;

use testbed::protocol::Phases;

use crate::backoff::Backoff;

/// How long a checkout waits for a connection by default. AnyEvent::Task
/// waits 30 s, for interactive servers whose callers retry; a batch whose
/// server is down should learn it sooner, and a server restart (the case
/// this wait exists for) takes milliseconds.
pub const DEFAULT_CHECKOUT_TIMEOUT: Duration = Duration::from_secs(5);

// ANCHOR: knobs
/// The limits of a pool beyond its size: every field is optional policy,
/// and [`Knobs::default`] is a pool that only reconnects politely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knobs {
    /// Close a connection that has been idle in the pool this long
    /// (`--idle-timeout`), unless that leaves fewer than `min_idle`.
    ///
    /// Prevents: holding a burst's worth of connections (each a thread, a
    /// buffer, a slot in the server's own limit) for the rest of the day;
    /// and reusing a connection so old that a firewall or the server has
    /// silently dropped it.
    pub idle_timeout: Option<Duration>,
    /// Retire a connection once it has carried this many requests
    /// (`--max-uses`; AnyEvent::Task's `max_checkouts`), when its checkout
    /// ends.
    ///
    /// Prevents: a server-side leak (memory, file handles, a session that
    /// grows) living forever; and every connection pinned to one backend
    /// behind a load balancer that only balances at connect time.
    pub max_uses: Option<u64>,
    /// Keep at least this many connections open and idle, within the size
    /// (`--min-idle`; AnyEvent::Task's `min_workers`, "hot standby").
    ///
    /// Prevents: the first requests after a quiet spell paying for a
    /// handshake (or, with TLS, several round trips) before any work.
    pub min_idle: usize,
    /// Fail a checkout that waited this long for a connection, with
    /// `pool_timeout` (`--checkout-timeout`; `None` waits forever).
    ///
    /// Prevents: requests piling up without bound behind a pool that cannot
    /// keep up, or a server that is down, each caller waiting forever
    /// instead of hearing "not now".
    pub checkout_timeout: Option<Duration>,
    /// Return a connection to the pool after its checkout saw an error
    /// answer (`NAK`, `500`) (`--reuse-after-error`; AnyEvent::Task's
    /// `dont_refork_after_error`). Off by default: the connection is closed.
    ///
    /// Prevents (when off): a peer left in a bad state by whatever made it
    /// fail (a transaction still open, a half-read result) serving the next
    /// caller. The price is a reconnect per error.
    pub reuse_after_error: bool,
    /// The waits between failed connects, and between standbys that a
    /// server drops unused.
    ///
    /// Prevents: a reconnect storm while the server is down, or turns
    /// connections away.
    pub backoff: Backoff,
    /// The seed of the backoff's jitter.
    pub seed: u64,
}
// ANCHOR_END: knobs

impl Knobs {
    /// Checks the knobs make sense for a pool of `size` connections; the
    /// error says which does not. (The size itself is [`Config`]'s to
    /// check.)
    pub fn validate(&self, size: usize) -> Result<(), String> {
        if self.min_idle > size {
            return Err(format!(
                "min_idle ({}) is larger than the pool's size ({size})",
                self.min_idle
            ));
        }
        if self.max_uses == Some(0) {
            return Err("max_uses must be at least 1".into());
        }
        Ok(())
    }
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs {
            idle_timeout: None,
            max_uses: None,
            min_idle: 0,
            checkout_timeout: Some(DEFAULT_CHECKOUT_TIMEOUT),
            reuse_after_error: false,
            backoff: Backoff::default(),
            seed: 1,
        }
    }
}

/// Everything a [`crate::CheckoutPool`] needs: where, how many, which
/// request shape, how long to wait for a reply, and the knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// The slow server.
    pub server: SocketAddr,
    /// At most this many connections, open or opening (`--conns`;
    /// AnyEvent::Task's `max_workers`).
    pub size: usize,
    /// Single- or two-phase requests.
    pub phases: Phases,
    /// Fail a request whose connection has been silent this long while a
    /// reply is due, with `timeout`, and close that connection
    /// (`--read-timeout`; `None` waits forever).
    ///
    /// Prevents: one hung server thread holding a request, and its
    /// connection, forever. The connection must be closed, not reused: the
    /// late reply may still come, and would be read as the answer to the
    /// next request.
    pub read_timeout: Option<Duration>,
    /// Give up on a handshake that takes this long, and back off
    /// (`--connect-timeout`, shared by every stage).
    ///
    /// Prevents: a server that drops SYNs instead of refusing them holding
    /// a place in the pool for the kernel's own limit, about two minutes on
    /// Linux (`tcp_syn_retries` = 6).
    pub connect_timeout: Duration,
    /// The other limits.
    pub knobs: Knobs,
}

impl Config {
    /// A pool of `size` connections to `server`, two-phase requests, no
    /// read timeout, the shared default connect timeout, default knobs.
    pub fn new(server: SocketAddr, size: usize) -> Config {
        Config {
            server,
            size,
            phases: Phases::Two,
            read_timeout: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            knobs: Knobs::default(),
        }
    }

    /// Checks the limits make sense together; the error says which does not.
    pub fn validate(&self) -> Result<(), String> {
        if self.size == 0 {
            return Err("a pool of no connections can send nothing".into());
        }
        self.knobs.validate(self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knobs_are_checked_against_the_size_alone() {
        let knobs = Knobs {
            min_idle: 3,
            ..Knobs::default()
        };
        assert_eq!(knobs.validate(3), Ok(()));
        assert!(knobs.validate(2).is_err_and(|e| e.contains("min_idle (3)")));
        let worn = Knobs {
            max_uses: Some(0),
            ..Knobs::default()
        };
        assert!(worn.validate(3).is_err_and(|e| e.contains("max_uses")));
    }

    #[test]
    fn a_config_checks_its_size_then_its_knobs() {
        let mut config = Config::new(([127, 0, 0, 1], 1).into(), 0);
        assert!(
            config
                .validate()
                .is_err_and(|e| e.contains("no connections"))
        );
        config.size = 2;
        config.knobs.min_idle = 3;
        assert_eq!(config.validate(), config.knobs.validate(2));
    }
}
