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

/// The pool's counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Connections whose handshake finished.
    pub opened: u64,
    /// Connects that failed: refused, timed out, or turned away with
    /// `503 busy` (a connection that dies later is a close, not one of these).
    pub connect_failures: u64,
    /// Connections closed, by reason.
    pub closed: ClosedBy,
    /// The most connections open or opening at once.
    pub peak: usize,
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

    pub(crate) fn closed(&mut self, reason: CloseReason) {
        self.closed.add(reason);
    }

    pub(crate) fn waited(&mut self, wait: Duration) {
        self.waits_us
            .push(u64::try_from(wait.as_micros()).unwrap_or(u64::MAX));
    }

    /// A one-line summary of the connections, for the report.
    pub fn connections_line(&self) -> String {
        let by: Vec<String> = CloseReason::ALL
            .into_iter()
            .filter(|&r| self.closed.get(r) > 0)
            .map(|r| format!("{r} {}", self.closed.get(r)))
            .collect();
        let by = if by.is_empty() {
            String::new()
        } else {
            format!(" ({})", by.join(", "))
        };
        format!(
            "{} opened, peak {}, {} closed{by}, {} failed connects",
            self.opened,
            self.peak,
            self.closed.total(),
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
        stats.closed(CloseReason::MaxUses);
        stats.closed(CloseReason::MaxUses);
        stats.closed(CloseReason::Timeout);
        assert_eq!(stats.closed.get(CloseReason::MaxUses), 2);
        assert_eq!(stats.closed.total(), 3);
        assert!(
            stats
                .connections_line()
                .contains("3 closed (max_uses 2, timeout 1)")
        );
    }
}
