//! The loop records itself: one [`Turn`] per wake-up of an event loop.
//!
//! A report can say "asleep in wait 91% of the run", but not *when* the loop
//! woke, how many connections were ready each time, which timers fired or
//! what it did before sleeping again. Every event-loop stage (03 to 08)
//! keeps a [`TurnLog`]: just before its wait it calls
//! [`TurnLog::sleeping`], just after [`TurnLog::woke`] with the number of
//! ready connections, and then adds what the turn did (timers fired, fibers
//! or tasks run, items finished). The harness stores the log in the run's
//! database (table `loop_turns`, see `store/turns.rs`) and the timeline
//! page draws one tick per wake-up beside the connections' lanes.
//!
//! # Cheap and bounded
//!
//! A loop turns thousands of times a second, so recording must cost next
//! to nothing: a turn is a few integers pushed onto a `Vec` (no lock, no
//! allocation once the vector has grown, no I/O); the database sees the log
//! once, at the end of the run, in one transaction. The log keeps at most
//! [`MAX_TURNS`] turns: past that it counts the turns it dropped, and the
//! page says how many, rather than let a long run grow without bound.
//!
//! ```
//! use testbed::turns::TurnLog;
//!
//! let mut log = TurnLog::new();
//! log.sleeping();
//! // ... the loop's wait: epoll_wait, poll, select ...
//! log.woke(3); // three connections were ready
//! log.timers(1); // a read timeout fired
//! log.done(2); // two items finished in this turn
//! assert_eq!(log.len(), 1);
//! assert_eq!(log.dropped(), 0);
//! ```

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// How many turns a log keeps: at a few tens of bytes each, a few MiB, and
/// more wake-ups than a page can show one by one.
pub const MAX_TURNS: usize = 100_000;

/// One turn as stored and drawn: times in µs since the run's epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// When the wait returned.
    pub woke_us: u64,
    /// How long the wait lasted (the loop was asleep).
    pub slept_us: u64,
    /// How long the loop then worked before it waited again (0 for the
    /// last turn).
    pub busy_us: u64,
    /// Connections (events) the wait reported ready.
    pub ready: u32,
    /// Timers that fired in this turn (read, idle, connect, sleep timers).
    pub timers: u32,
    /// Fibers resumed or tasks polled in this turn (06 and 07; 0 elsewhere).
    pub ran: u32,
    /// Items whose outcome became known in this turn (03 to 05 and 08; the fibers
    /// and tasks of 06 and 07 record theirs themselves, and the rows say
    /// when).
    pub done: u32,
}

/// A loop's recorded turns, as the database holds them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopTurns {
    /// The turns kept, in order.
    pub turns: Vec<Turn>,
    /// Turns that happened after the log was full, counted, not kept.
    pub dropped: u64,
}

/// A turn while it is being recorded: instants, converted to µs only when
/// the log is stored. The live view reads these (see [`live`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveTurn {
    /// When the wait returned.
    pub woke: Instant,
    /// How long the wait lasted.
    pub slept: Duration,
    /// How long the loop then worked before it waited again.
    pub busy: Duration,
    /// Connections (events) the wait reported ready.
    pub ready: u32,
    /// Timers that fired in this turn.
    pub timers: u32,
    /// Fibers resumed or tasks polled in this turn.
    pub ran: u32,
    /// Items whose outcome became known in this turn.
    pub done: u32,
}

/// The recorder an event loop keeps (see the module docs).
#[derive(Debug, Clone)]
pub struct TurnLog {
    turns: Vec<LiveTurn>,
    cap: usize,
    dropped: u64,
    /// When the loop last went to sleep.
    asleep_since: Option<Instant>,
    /// Whether the last turn was kept, so the adders know where to add.
    last_kept: bool,
}

impl Default for TurnLog {
    fn default() -> TurnLog {
        TurnLog::new()
    }
}

impl TurnLog {
    /// An empty log that keeps up to [`MAX_TURNS`] turns.
    pub fn new() -> TurnLog {
        TurnLog::with_cap(MAX_TURNS)
    }

    /// An empty log that keeps up to `cap` turns (a test's small bound).
    pub fn with_cap(cap: usize) -> TurnLog {
        live::recording();
        TurnLog {
            turns: Vec::new(),
            cap,
            dropped: 0,
            asleep_since: None,
            last_kept: false,
        }
    }

    /// The loop is about to wait. Closes the previous turn's working time.
    pub fn sleeping(&mut self) {
        let now = Instant::now();
        if self.last_kept
            && let Some(last) = self.turns.last_mut()
        {
            last.busy = now.saturating_duration_since(last.woke);
            live::publish(*last);
        }
        self.asleep_since = Some(now);
    }

    /// The wait returned with `ready` connections ready: a new turn.
    pub fn woke(&mut self, ready: usize) {
        let now = Instant::now();
        let slept = self
            .asleep_since
            .take()
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
        let turn = LiveTurn {
            woke: now,
            slept,
            busy: Duration::ZERO,
            ready: saturate(ready),
            timers: 0,
            ran: 0,
            done: 0,
        };
        self.last_kept = self.turns.len() < self.cap;
        if !self.last_kept {
            self.dropped += 1;
            // The stored log is full, but a live view still wants to see
            // the loop wake: what is known of the turn so far.
            live::publish(turn);
            return;
        }
        self.turns.push(turn);
    }

    /// `n` timers fired in the current turn.
    pub fn timers(&mut self, n: usize) {
        self.add(n, |t| &mut t.timers);
    }

    /// `n` fibers or tasks ran in the current turn.
    pub fn ran(&mut self, n: usize) {
        self.add(n, |t| &mut t.ran);
    }

    /// `n` items finished in the current turn.
    pub fn done(&mut self, n: usize) {
        self.add(n, |t| &mut t.done);
    }

    /// Turns kept.
    pub fn len(&self) -> usize {
        self.turns.len()
    }

    /// No turn kept.
    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }

    /// Turns counted but not kept, once the log was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The turns with times in µs since `epoch`, as stored.
    pub fn since(&self, epoch: Instant) -> LoopTurns {
        let micros = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        LoopTurns {
            turns: self
                .turns
                .iter()
                .map(|t| Turn {
                    woke_us: micros(t.woke.saturating_duration_since(epoch)),
                    slept_us: micros(t.slept),
                    busy_us: micros(t.busy),
                    ready: t.ready,
                    timers: t.timers,
                    ran: t.ran,
                    done: t.done,
                })
                .collect(),
            dropped: self.dropped,
        }
    }

    fn add(&mut self, n: usize, field: impl FnOnce(&mut LiveTurn) -> &mut u32) {
        // Work before the first wake-up (the loop's start) belongs to no
        // turn; work of a dropped turn is dropped with it.
        if n == 0 || !self.last_kept {
            return;
        }
        if let Some(last) = self.turns.last_mut() {
            let slot = field(last);
            *slot = slot.saturating_add(saturate(n));
        }
    }
}

pub mod live {
    //! The last few turns, shared with a live view (`--watch`) while the
    //! run goes on.
    //!
    //! The stored log is the loop's own, handed over when the run ends; a
    //! view that wants the wake-ups *now* reads them here instead. Off by
    //! default, when a loop pays one relaxed atomic load per turn for it;
    //! [`enable`] switches it on, and then each finished turn is copied
    //! into a small ring behind a lock that the view reads ten times a
    //! second. It is one per process, like the run it watches.
    //!
    //! ```
    //! use testbed::turns::{TurnLog, live};
    //!
    //! live::enable();
    //! let mut log = TurnLog::new();
    //! log.sleeping();
    //! log.woke(2);
    //! log.sleeping(); // the turn is finished: published
    //! let recent = live::recent(8).expect("a loop is recording");
    //! assert_eq!(recent.last().map(|t| t.ready), Some(2));
    //! ```

    use std::collections::VecDeque;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::LiveTurn;

    /// How many turns the ring keeps: more than a view shows.
    pub const KEPT: usize = 64;

    static ON: AtomicBool = AtomicBool::new(false);
    static RECORDING: AtomicBool = AtomicBool::new(false);
    static RECENT: Mutex<VecDeque<LiveTurn>> = Mutex::new(VecDeque::new());

    /// Starts sharing turns from now on (the live view calls it before
    /// the run starts).
    pub fn enable() {
        ON.store(true, Ordering::Relaxed);
    }

    /// The last `n` finished turns, oldest first; `None` while no loop of
    /// this process has started recording (a stage without an event loop).
    pub fn recent(n: usize) -> Option<Vec<LiveTurn>> {
        if !RECORDING.load(Ordering::Relaxed) {
            return None;
        }
        let ring = RECENT
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Some(
            ring.iter()
                .skip(ring.len().saturating_sub(n))
                .copied()
                .collect(),
        )
    }

    /// A [`super::TurnLog`] was made: this process has an event loop.
    pub(super) fn recording() {
        if ON.load(Ordering::Relaxed) {
            RECORDING.store(true, Ordering::Relaxed);
        }
    }

    /// Shares `turn` if a view is watching.
    pub(super) fn publish(turn: LiveTurn) {
        if !ON.load(Ordering::Relaxed) {
            return;
        }
        let mut ring = RECENT
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if ring.len() == KEPT {
            ring.pop_front();
        }
        ring.push_back(turn);
    }
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_log_counts_what_it_drops() {
        let mut log = TurnLog::with_cap(2);
        for ready in 1..=5 {
            log.sleeping();
            log.woke(ready);
            log.done(1);
        }
        assert_eq!((log.len(), log.dropped()), (2, 3));
        let stored = log.since(Instant::now() - Duration::from_secs(1));
        assert_eq!(stored.turns[1].ready, 2);
        assert_eq!(stored.turns.iter().map(|t| t.done).sum::<u32>(), 2);
    }

    #[test]
    fn work_before_the_first_wake_belongs_to_no_turn() {
        let mut log = TurnLog::new();
        log.ran(4);
        log.sleeping();
        log.woke(0);
        log.timers(2);
        log.ran(3);
        let stored = log.since(Instant::now() - Duration::from_secs(1));
        assert_eq!(stored.turns.len(), 1);
        assert_eq!((stored.turns[0].timers, stored.turns[0].ran), (2, 3));
    }
}
