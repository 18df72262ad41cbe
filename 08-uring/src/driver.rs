//! The loop: hand items to free lanes, submit the turn's entries, wait for
//! completions, give each back to its lane, record what finished.
//!
//! Compare stage 4's loop: there, one `epoll_wait` says which sockets are
//! ready and the loop then makes a `read` or a `write` on each of them, a
//! system call per socket and per direction. Here the loop makes one
//! system call per turn, `io_uring_enter`, which both submits every
//! operation queued since the last turn and sleeps until one completes.
//! What used to be the loop's `read` has already happened by the time the loop wakes.
//!
//! Not here: what a lane does with a completion (`lane.rs`).

use testbed::stage::{Scenario, StageError};
use testbed::store::{Lane as DbLane, Store};
use testbed::turns::TurnLog;

use crate::lane::{Finished, Lane, LaneConfig};
use crate::ring::{Completion, Ring, RingStats};

/// What a finished run counted.
#[derive(Debug, Clone, Default)]
pub struct DriverStats {
    /// The ring's counters.
    pub ring: RingStats,
    /// Turns of the loop (each is one `submit_and_wait`).
    pub turns: u64,
    /// Connections opened.
    pub connects: u64,
    /// Each turn's wake-up: completions reaped, linked timeouts fired,
    /// items finished (for the timeline page).
    pub log: TurnLog,
}

/// Runs every item of `scenario` on `conns` lanes over `ring`, recording
/// each outcome into `store` as it finishes. A failure to record is kept,
/// the run goes on to its end (every item still gets its answer, and the
/// ring empties), and the first such failure is the run's error.
pub fn run(ring: Ring, scenario: &Scenario, store: &mut Store) -> Result<DriverStats, StageError> {
    let conns = scenario.conns.min(scenario.items.len()).max(1);
    let config = LaneConfig {
        server: scenario.server,
        phases: scenario.phases,
        read_timeout: scenario.read_timeout,
        connect_timeout: scenario.connect_timeout,
    };
    let mut lanes: Vec<Lane> = (0..conns).map(Lane::new).collect();
    // Free lanes, popped from the end: lane 0 first, and a lane that just
    // finished (its connection open) before one never used.
    let mut free: Vec<usize> = (0..conns).rev().collect();
    let mut listed = vec![true; conns];
    let mut items = scenario.items.iter().cloned();
    let mut busy = 0usize;
    let mut completions: Vec<Completion> = Vec::new();
    let mut finished: Vec<Finished> = Vec::new();
    let mut stats = DriverStats::default();
    let mut store_error: Option<StageError> = None;
    // Declared after the lanes, so dropped before them: on an early return
    // or a panic the ring cancels and waits for its operations first. (It
    // holds a share of every socket it works on, so the order is not what
    // keeps a descriptor open; it keeps a socket from closing under an
    // operation that is only being cancelled.)
    let mut ring = ring;

    // ANCHOR: loop
    loop {
        // Every free lane gets an item: their entries only queue up.
        while let Some(&index) = free.last() {
            let Some(item) = items.next() else {
                break;
            };
            free.pop();
            listed[index] = false;
            stats.connects += u64::from(!lanes[index].has_connection());
            lanes[index].start(item, &config, &mut ring, &mut finished)?;
            busy += 1;
            relist(index, &lanes, &mut free, &mut listed);
        }
        record(store, &mut finished, &mut busy, &mut store_error);
        if busy == 0 && items.len() == 0 && ring.in_flight() == 0 {
            break;
        }
        // One system call: the turn's entries go in, and the loop sleeps
        // until at least one operation has completed.
        let fired = ring.stats().timeouts_fired;
        stats.log.sleeping();
        ring.submit_and_wait()?;
        stats.turns += 1;
        ring.reap(&mut completions);
        stats.log.woke(completions.len());
        stats
            .log
            .timers(usize::try_from(ring.stats().timeouts_fired - fired).unwrap_or(0));
        for completion in completions.drain(..) {
            let index = completion.owner;
            lanes[index].on_completion(completion, &config, &mut ring, &mut finished)?;
            relist(index, &lanes, &mut free, &mut listed);
        }
        stats.log.done(finished.len());
        record(store, &mut finished, &mut busy, &mut store_error);
    }
    // ANCHOR_END: loop
    if let Some(error) = store_error {
        return Err(error);
    }
    stats.ring = ring.stats();
    Ok(stats)
}

/// Records every finished item, once, in the order they finished; the
/// first failure to record is kept in `error`.
fn record(
    store: &mut Store,
    finished: &mut Vec<Finished>,
    busy: &mut usize,
    error: &mut Option<StageError>,
) {
    for done in finished.drain(..) {
        *busy -= 1;
        let recorded = store.record(
            done.item.id,
            DbLane::of(done.lane),
            done.started,
            &done.outcome,
        );
        if let Err(e) = recorded {
            error.get_or_insert(e.into());
        }
    }
}

/// Puts lane `index` back on the free list if it has become free: it
/// carries no item, and waits for no cancelled operation to come back.
fn relist(index: usize, lanes: &[Lane], free: &mut Vec<usize>, listed: &mut [bool]) {
    if !listed[index] && lanes[index].is_free() {
        listed[index] = true;
        free.push(index);
    }
}
