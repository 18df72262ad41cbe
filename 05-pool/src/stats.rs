//! What the pool counts: connections opened and why they closed, the
//! largest the pool got, and how long checkouts waited for a connection.
//!
//! These are the numbers that say whether the knobs are set right. Many
//! `idle` closes and as many opens: the idle timeout is shorter than the gap
//! between bursts. Many `max_uses` closes at once: every connection was born
//! together and retires together (chapter 5's exercise spreads them). A
//! p99 wait near the checkout timeout: the pool is too small for the load,
//! or the server too slow.
//!
//! Not here: the event log of a run ([`crate::journal`]).

use std::fmt;
use std::time::Duration;

/// Why the pool closed a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CloseReason {
    /// Idle longer than the idle timeout.
    Idle,
    /// Carried `max_uses` requests.
    MaxUses,
    /// Broke (closed by the server, garbage, a failed write), or was
    /// discarded after its checkout saw an error answer.
    Error,
    /// A reply did not come within the read timeout.
    Timeout,
    /// The pool was closed.
    Shutdown,
}

impl CloseReason {
    /// Every reason, in report order.
    pub const ALL: [CloseReason; 5] = [
        CloseReason::Idle,
        CloseReason::MaxUses,
        CloseReason::Error,
        CloseReason::Timeout,
        CloseReason::Shutdown,
    ];

    /// The word used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            CloseReason::Idle => "idle",
            CloseReason::MaxUses => "max_uses",
            CloseReason::Error => "error",
            CloseReason::Timeout => "timeout",
            CloseReason::Shutdown => "shutdown",
        }
    }
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Connections closed, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClosedBy([u64; 5]);

impl ClosedBy {
    /// Closes for `reason`.
    pub fn get(&self, reason: CloseReason) -> u64 {
        self.0[reason as usize]
    }

    /// Every close.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    fn add(&mut self, reason: CloseReason) {
        self.0[reason as usize] += 1;
    }
}

/// The pool's connections, counted as they come and go: how many are
/// opening and open now, how many opened and closed so far, the most at
/// once.
///
/// These counts must agree with each other, and they change in four
/// places of the pool (a connect starts, a handshake ends with or without
/// a connection, a connection closes). Each place calls one method here,
/// and the number of open connections is not kept at all: it is derived.
///
/// # Invariant
///
/// `open() == opened - closed.total()`, by construction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Census {
    /// Handshakes in progress.
    opening: usize,
    /// Connections whose handshake finished.
    opened: u64,
    /// Connections closed, by reason.
    closed: ClosedBy,
    /// The most connections open or opening at once.
    peak: usize,
}

impl Census {
    /// A connect started.
    pub(crate) fn connecting(&mut self) {
        self.opening += 1;
        self.peak = self.peak.max(self.live());
    }

    /// A handshake finished: the connection is open.
    pub(crate) fn connected(&mut self) {
        self.handshake_over();
        self.opened += 1;
    }

    /// A handshake ended without a connection: it failed, timed out, or
    /// the pool closed.
    pub(crate) fn abandoned(&mut self) {
        self.handshake_over();
    }

    /// An open connection closed, for `reason`.
    pub(crate) fn closed(&mut self, reason: CloseReason) {
        debug_assert!(self.open() > 0, "closing a connection that is not open");
        self.closed.add(reason);
    }

    /// Connections open now.
    pub(crate) fn open(&self) -> usize {
        let open = self.opened - self.closed.total();
        usize::try_from(open).expect("no more connections are open than fit in memory")
    }

    /// Handshakes in progress now.
    pub(crate) fn opening(&self) -> usize {
        self.opening
    }

    /// Connections open or opening now: what the pool's size limits.
    pub(crate) fn live(&self) -> usize {
        self.open() + self.opening
    }

    fn handshake_over(&mut self) {
        self.opening = self
            .opening
            .checked_sub(1)
            .expect("a handshake ends only after it started");
    }
}

/// The pool's counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Connections opening, open, opened and closed.
    pub(crate) census: Census,
    /// Connects that failed: refused, timed out, or turned away with
    /// `503 busy` (a connection that dies later is a close, not one of these).
    pub connect_failures: u64,
    /// Checkouts asked for.
    pub checkouts: u64,
    /// Checkouts that found no free connection and queued.
    pub queued: u64,
    /// Queued checkouts that got no connection in time.
    pub gave_up: u64,
    /// How long each queued checkout waited (until it got a connection,
    /// gave up or was dropped), in microseconds.
    waits_us: Vec<u64>,
    /// Calls to the selector's `wait`.
    pub waits: u64,
    /// Time spent asleep in those waits.
    pub asleep: Duration,
}

impl Stats {
    /// The `p`th percentile (0 to 100, nearest rank) of the queued
    /// checkouts' waits; `None` if none queued.
    pub fn wait_percentile(&self, p: f64) -> Option<Duration> {
        let mut sorted = self.waits_us.clone();
        sorted.sort_unstable();
        let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
        let index = rank.clamp(1, sorted.len().max(1)) - 1;
        sorted.get(index).map(|&us| Duration::from_micros(us))
    }

    /// Connections whose handshake finished.
    pub fn opened(&self) -> u64 {
        self.census.opened
    }

    /// Connections closed, by reason.
    pub fn closed(&self) -> &ClosedBy {
        &self.census.closed
    }

    /// The most connections open or opening at once.
    pub fn peak(&self) -> usize {
        self.census.peak
    }

    pub(crate) fn waited(&mut self, wait: Duration) {
        self.waits_us
            .push(u64::try_from(wait.as_micros()).unwrap_or(u64::MAX));
    }

    /// A one-line summary of the connections, for the report.
    pub fn connections_line(&self) -> String {
        let closed = self.closed();
        let by: Vec<String> = CloseReason::ALL
            .into_iter()
            .filter(|&r| closed.get(r) > 0)
            .map(|r| format!("{r} {}", closed.get(r)))
            .collect();
        let by = if by.is_empty() {
            String::new()
        } else {
            format!(" ({})", by.join(", "))
        };
        format!(
            "{} opened, peak {}, {} closed{by}, {} failed connects",
            self.opened(),
            self.peak(),
            closed.total(),
            self.connect_failures
        )
    }

    /// A one-line summary of the loop over a run of length `run`: how
    /// often it waited, and how much of the run it spent asleep doing so
    /// (the rest was its own work: system calls, parsing, bookkeeping).
    pub fn loop_line(&self, run: Duration) -> String {
        let share = |part: Duration| {
            if run.is_zero() {
                0.0
            } else {
                100.0 * part.as_secs_f64() / run.as_secs_f64()
            }
        };
        format!(
            "{} waits, asleep {:.0}% of the run",
            self.waits,
            share(self.asleep)
        )
    }

    /// A one-line summary of the checkout queue, for the report.
    pub fn queue_line(&self) -> String {
        let ms = |d: Option<Duration>| d.map_or(0.0, |d| d.as_secs_f64() * 1e3);
        format!(
            "{} of {} checkouts queued, waited p50 {:.2} ms, p99 {:.2} ms; {} gave up",
            self.queued,
            self.checkouts,
            ms(self.wait_percentile(50.0)),
            ms(self.wait_percentile(99.0)),
            self.gave_up
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut stats = Stats::default();
        assert_eq!(stats.wait_percentile(50.0), None);
        for ms in 1..=100 {
            stats.waited(Duration::from_millis(ms));
        }
        let ms = Duration::from_millis;
        assert_eq!(stats.wait_percentile(50.0), Some(ms(50)));
        assert_eq!(stats.wait_percentile(99.0), Some(ms(99)));
        assert_eq!(stats.wait_percentile(100.0), Some(ms(100)));
        assert_eq!(stats.wait_percentile(0.0), Some(ms(1)));
    }

    #[test]
    fn closes_are_counted_by_reason() {
        let mut stats = Stats::default();
        for _ in 0..3 {
            stats.census.connecting();
            stats.census.connected();
        }
        stats.census.closed(CloseReason::MaxUses);
        stats.census.closed(CloseReason::MaxUses);
        stats.census.closed(CloseReason::Timeout);
        assert_eq!(stats.closed().get(CloseReason::MaxUses), 2);
        assert_eq!(stats.closed().total(), 3);
        assert!(
            stats
                .connections_line()
                .contains("3 closed (max_uses 2, timeout 1)")
        );
    }

    #[test]
    fn the_census_derives_open_from_opened_and_closed() {
        let mut census = Census::default();
        for _ in 0..3 {
            census.connecting();
        }
        assert_eq!((census.opening(), census.open(), census.peak), (3, 0, 3));
        census.connected();
        census.connected();
        census.abandoned();
        assert_eq!((census.opening(), census.open(), census.live()), (0, 2, 2));
        census.closed(CloseReason::Idle);
        census.connecting();
        assert_eq!((census.open(), census.live(), census.opened), (1, 2, 2));
        assert_eq!(census.peak, 3, "the most at once, not the most ever");
    }
}
