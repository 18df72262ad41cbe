//! When the server served what: an optional log of every request line's
//! service time, by item and phase.
//!
//! A timeline drawn from the results database knows when the client started
//! an item and when it recorded the outcome, nothing in between. This log
//! adds the server's side: when each request line was complete (its service
//! time starts) and when its service time ended (its reply, or its fault,
//! follows at once). The gap between that and the client's next step is
//! time the reply spent waiting to be read, which is where round-robin's
//! head-of-line blocking hides.
//!
//! Beside the log, a board of what each open connection is doing right now
//! ([`Serving`]): the live view (`--watch`) reads it several times a second
//! to show each connection's current item and phase, which the database
//! only learns when the item is over.
//!
//! Both are off unless asked for: the log by
//! [`SlowServer::record_served_lines`] (the harness asks for `--timeline`),
//! the board by [`SlowServer::board`] (for `--watch`). A benchmark pays
//! one atomic load per line for them.
//!
//! Not here: counting (`stats.rs`), which is always on.
//!
//! [`SlowServer::record_served_lines`]: super::SlowServer::record_served_lines
//! [`SlowServer::board`]: super::SlowServer::board

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use crate::faults::Fault;
use crate::protocol::{ItemId, Phase};

/// One request line the server served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServedLine {
    /// The item.
    pub id: ItemId,
    /// Its phase: `GET`, `HEAD` or `BODY`.
    pub phase: Phase,
    /// When the line was complete: the service time starts here.
    pub received: Instant,
    /// When its service time ended: the reply (or the fault, for a line
    /// the server sabotages) is written at once.
    pub done: Instant,
}

/// What one open connection is doing at the server right now: the last
/// request line it sent, and whether its service time is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Serving {
    /// The client's port: the connection's name while it is open (each
    /// connection from one client has its own).
    pub port: u16,
    /// The item of its last request line.
    pub id: ItemId,
    /// That line's phase.
    pub phase: Phase,
    /// When the line was complete.
    pub received: Instant,
    /// When its service time ended (the reply went out at once); `None`
    /// while the server is still "working" on it.
    pub done: Option<Instant>,
    /// The fault the server injected instead of (or into) the reply, once
    /// the service time is over: a `hang` looks like a long service time
    /// from outside, and the board says which it is.
    pub fault: Option<Fault>,
}

/// The log and the board, each `None` while off.
#[derive(Debug, Default)]
struct Log {
    lines: Option<Vec<ServedLine>>,
    now: Option<BTreeMap<u16, Serving>>,
}

/// The log and the board, behind one lock; `on` says whether either is
/// kept, so that a server with both off (a benchmark's) takes no lock.
#[derive(Debug, Default)]
pub(super) struct ServedLog {
    on: AtomicBool,
    log: Mutex<Log>,
}

impl ServedLog {
    /// Starts the log (a second call keeps what was recorded).
    pub(super) fn start(&self) {
        self.lock().lines.get_or_insert_with(Vec::new);
        self.on.store(true, Ordering::SeqCst);
    }

    /// Starts the board: from now on, each connection's last line is kept
    /// until it closes. A connection already busy joins at its next line.
    pub(super) fn start_board(&self) {
        self.lock().now.get_or_insert_with(BTreeMap::new);
        self.on.store(true, Ordering::SeqCst);
    }

    /// The connection on `port` sent a line that starts its service time.
    pub(super) fn begin(&self, port: u16, id: ItemId, phase: Phase, received: Instant) {
        if !self.is_on() {
            return;
        }
        if let Some(now) = self.lock().now.as_mut() {
            let serving = Serving {
                port,
                id,
                phase,
                received,
                done: None,
                fault: None,
            };
            now.insert(port, serving);
        }
    }

    /// Records a line whose service time just ended, and the fault its
    /// answer gets, in whichever of the log and the board is on.
    pub(super) fn push(
        &self,
        port: u16,
        id: ItemId,
        phase: Phase,
        received: Instant,
        fault: Option<Fault>,
    ) {
        if !self.is_on() {
            return;
        }
        let done = Instant::now();
        let mut log = self.lock();
        if let Some(lines) = log.lines.as_mut() {
            lines.push(ServedLine {
                id,
                phase,
                received,
                done,
            });
        }
        if let Some(serving) = log.now.as_mut().and_then(|now| now.get_mut(&port)) {
            serving.done = Some(done);
            serving.fault = fault;
        }
    }

    /// The connection on `port` is closed: it leaves the board.
    pub(super) fn gone(&self, port: u16) {
        if !self.is_on() {
            return;
        }
        if let Some(now) = self.lock().now.as_mut() {
            now.remove(&port);
        }
    }

    /// Everything logged so far, in the order the service times ended.
    pub(super) fn snapshot(&self) -> Vec<ServedLine> {
        self.lock().lines.clone().unwrap_or_default()
    }

    /// What each open connection is doing, by port.
    pub(super) fn now_serving(&self) -> Vec<Serving> {
        self.lock()
            .now
            .as_ref()
            .map(|now| now.values().copied().collect())
            .unwrap_or_default()
    }

    fn is_on(&self) -> bool {
        // Set once, before the run's first connection: a line that races
        // the switch is simply not kept, as if it came just before.
        self.on.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        // Each critical section is one push, one insert or one clone, which
        // leaves the log whole even if a thread panicked while holding the lock.
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
